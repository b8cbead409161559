# /// tfdist
# doctor = ["model", "restored"]
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = "passes"
# "tf2.15" = { prints = "synchronized after loading: False\\n[\\s\\S]*copies of moving_mean equal after more training: False" }
# "tf2.21-tfkeras" = { prints = "synchronized after loading: False\\n[\\s\\S]*copies of moving_mean equal after more training: False" }
# "tf2.4" = { not-applicable = "this tf.keras has no synchronized argument; its SyncBatchNormalization is the only synchronized batch normalization (synchronized_batchnorm.py)" }
# "tf2.5" = { not-applicable = "this tf.keras has no synchronized argument; its SyncBatchNormalization is the only synchronized batch normalization (synchronized_batchnorm.py)" }
# "tf1.15" = { not-applicable = "written for TF 2 Keras (fit and load_model of a .keras file under MirroredStrategy)" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.BatchNormalization(synchronized=True)(tf.keras.layers.Dense(4)(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, np.ones((16, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "model.keras")
model.save(path)

with strategy.scope():  # a second stage: load the model and train it on, on the replicas
    restored = tf.keras.models.load_model(path, compile=False)
    restored.compile(optimizer="sgd", loss="mse")
norm = [layer for layer in restored.layers if "Normalization" in type(layer).__name__][0]
print("synchronized after loading:", norm.synchronized)
restored.fit(2 * x, np.zeros((16, 1), "float32"), batch_size=8, epochs=2, shuffle=False, verbose=0)
moving_mean = [w for w in norm.weights if "moving_mean" in w.name][0]
moving_mean = moving_mean.value if isinstance(getattr(moving_mean, "value", None), tf.Variable) else moving_mean
copies = [c.numpy() for c in strategy.experimental_local_results(moving_mean)]
print("copies of moving_mean equal after more training:", all(np.allclose(copies[0], c) for c in copies))
assert len(copies) == 4
# --8<-- [end:example]
