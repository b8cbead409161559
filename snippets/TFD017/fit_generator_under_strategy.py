# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { raises = "NotImplementedError", match = "`fit_generator` is not supported for models compiled with tf\\.distribute\\.Strategy" }
# "tf2.0.4" = { raises = "NotImplementedError", match = "`fit_generator` is not supported for models compiled with tf\\.distribute\\.Strategy" }
# "tf2.21-keras3" = { raises = "AttributeError", match = "object has no attribute 'fit_generator'" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

keras = tf.keras
devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith(("1.", "2.0.")):  # its MirroredStrategy() counts GPUs only: name the devices
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]


def replica_id(y_true, y_pred):
    # A metric whose value for each example is the id of the replica that computed it: its mean
    # over an epoch is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas trained.
    ctx = tf.distribute.get_replica_context()
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def batches(batch_size):
    # An endless Python generator of (features, labels) batches, as in the reports
    rng = np.random.RandomState(0)
    while True:
        x = rng.rand(batch_size, 3).astype(np.float32)
        yield x, x.sum(axis=1, keepdims=True)


strategy = tf.distribute.MirroredStrategy(devices)
with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

# The call of the reports: the generator method of Keras 2, under the strategy
history = model.fit_generator(batches(8), steps_per_epoch=4, epochs=1, verbose=0)
seen = history.history["replica_id"][0]
print("mean replica id:", seen)
assert seen == 1.5
# --8<-- [end:example]
