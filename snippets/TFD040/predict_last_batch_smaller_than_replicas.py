# /// tfdist
# [expect]
# default = "passes"
# "tf2.0.4" = { raises = "ValueError", match = "could not broadcast input array from shape \\(10,1\\) into shape \\(2,1\\)" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # MirroredStrategy() takes every GPU, or else the CPU's devices
if tf.__version__.startswith("2.0."):  # its MirroredStrategy() counts GPUs only:
    config = tf.config.experimental  # name the machine's devices, its GPUs if it has any
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]
strategy = tf.distribute.MirroredStrategy(devices)

x = np.linspace(0, 1, 150, dtype="float32").reshape(50, 3)  # 50 examples: 3 batches of 16, then 2
y = x.sum(axis=1, keepdims=True)

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size=16, epochs=2, verbose=0)  # trains: the same partial batch is no problem here

predictions = model.predict(x, batch_size=16, verbose=0)  # the last batch: 2 examples for 4 replicas
print("predictions:", predictions.shape)
assert predictions.shape == (50, 1)
# --8<-- [end:example]
