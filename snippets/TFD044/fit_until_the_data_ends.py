# /// tfdist
# [expect]
# default = "passes"
# "tf2.0.4" = { raises = "CancelledError", match = "\\(\\d\\) Out of range:\\s+End of sequence" }
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


def replica_id(y_true, y_pred):  # its mean is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


x = np.linspace(0, 1, 48, dtype="float32").reshape(16, 3)
train = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(16)  # one batch

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

# each epoch reads the dataset until it ends, as every epoch of real data does. Where it fails,
# it fails at a random epoch, sometimes only after hundreds of them: TF 2.0 and 2.1 (an epoch is
# cheap there) get 1000 epochs; later releases, where an epoch of fit costs far more, get 60
epochs = 1000 if tf.__version__.startswith(("2.0.", "2.1.")) else 60
history = model.fit(train, epochs=epochs, verbose=0)
print("epochs trained:", len(history.history["loss"]), "of", epochs, "on", strategy.num_replicas_in_sync, "replicas")
assert len(history.history["loss"]) == epochs
assert set(history.history["replica_id"]) == {1.5}
# --8<-- [end:example]
