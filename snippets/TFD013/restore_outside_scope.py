# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Trying to create optimizer slot variable under the scope for tf\\.distribute\\.Strategy \\(<tensorflow\\.python\\.distribute\\.distribute_lib\\._DefaultDistributionStrategy[\\s\\S]*This may happen if you're restoring from a checkpoint outside the scope" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no OptimizerV2 (tf.keras.optimizers.legacy.Adam() raises ImportError), and no optimizer of Keras 3 raises this message" }
# "tf1.15" = { not-applicable = "the message does not exist in TF 1.15: its OptimizerV2.add_slot creates the slot without checking the strategy" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
# OptimizerV2: tf.keras's optimizer up to TF 2.10, kept as tf.keras.optimizers.legacy afterwards
optimizers = getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers)
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
y = np.ones((16, 2), "float32")


def compiled_model(optimizer):
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
        model.compile(optimizer=optimizer, loss="mse")
    return model


model = compiled_model(optimizers.Adam(0.1))  # the optimizer object is made before the scope
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # 2 steps: Adam's slots exist
path = tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(
    os.path.join(tempfile.mkdtemp(), "ckpt"))

# A new process would do this: the same model, then the training state from the checkpoint
resumed = compiled_model(optimizers.Adam(0.1))
tf.train.Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(path)  # outside the scope
resumed.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
# --8<-- [end:example]
