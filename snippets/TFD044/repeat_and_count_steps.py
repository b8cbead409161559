# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import math

import numpy as np
import tensorflow as tf

devices = None  # MirroredStrategy() takes every GPU, or else the CPU's devices
if tf.__version__.startswith("2.0."):  # its MirroredStrategy() counts GPUs only:
    config = tf.config.experimental  # name the machine's devices, its GPUs if it has any
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]
strategy = tf.distribute.MirroredStrategy(devices)
GLOBAL_BATCH = 16


def replica_id(y_true, y_pred):  # its mean is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def batches(x):  # x and its targets in global batches; the last one is short when len(x) is no multiple of 16
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(GLOBAL_BATCH)


x_train = np.linspace(0, 1, 48, dtype="float32").reshape(16, 3)
x_val = np.linspace(1, 2, 36, dtype="float32").reshape(12, 3)  # a second dataset, of another size

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

# the training data repeats, and the steps of one pass end each epoch: fit never reads past its end
steps_per_epoch = math.ceil(len(x_train) / GLOBAL_BATCH)
history = model.fit(batches(x_train).repeat(), steps_per_epoch=steps_per_epoch, epochs=30, verbose=0,
                    validation_data=batches(x_val))  # evaluating to the end of the data is fine
kernel = model.layers[-1].kernel
if isinstance(getattr(kernel, "value", None), tf.Variable):  # Keras 3 wraps the tf.Variable: .value is it
    kernel = kernel.value
print("epochs trained:", len(history.history["loss"]), "validated:", len(history.history["val_loss"]))
print("kernel:", type(kernel).__name__, "on", len(strategy.experimental_local_results(kernel)), "devices")
assert len(history.history["loss"]) == len(history.history["val_loss"]) == 30
assert set(history.history["replica_id"]) == {1.5}
assert len(strategy.experimental_local_results(kernel)) == 4

predictions = model.predict(batches(x_val).map(lambda x, y: x), verbose=0)  # so is predicting
print("predictions:", predictions.shape)
assert predictions.shape == (12, 1)
# --8<-- [end:example]
