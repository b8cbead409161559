# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no OptimizerV2 (tf.keras.optimizers.legacy.Adam() raises ImportError); see weights_after_optimizer_build.py" }
# "tf1.15" = { not-applicable = "restore_outside_scope.py does not fail on TF 1.15 (its OptimizerV2.add_slot has no strategy check), so there is nothing to fix" }
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


def kernel_slots(model):
    kernel = model.trainable_variables[0]
    return [v for v in model.optimizer.weights if v.shape == kernel.shape]


model = compiled_model(optimizers.Adam(0.1))
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
path = tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(
    os.path.join(tempfile.mkdtemp(), "ckpt"))

resumed = compiled_model(optimizers.Adam(0.1))
with strategy.scope():  # restore inside the scope: slots it creates are mirrored
    tf.train.Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(path)
print("kernel slots right after the restore:", len(kernel_slots(resumed)))

resumed.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # the run without the restart
slots = kernel_slots(resumed)
same = all(np.allclose(a.numpy(), b.numpy()) for a, b in zip(kernel_slots(model), slots))
copies = [c.numpy() for c in strategy.experimental_local_results(resumed.trainable_variables[0])]
print("kernel slots after the next epoch:", sorted(type(s).__name__ for s in slots))
print("slots equal to those of the run without the restart:", same)
print("kernel copies on the replicas:", len(copies), "identical:", all(np.array_equal(copies[0], c) for c in copies))
assert len(slots) == 2 and same and len(copies) == 4
assert all(type(s).__name__ == "MirroredVariable" for s in slots)
# --8<-- [end:example]
