# /// tfdist
# [expect]
# default = "passes"
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
    # The id of the replica that computed each example: its mean over an epoch is 1.5 only if all
    # 4 replicas (ids 0 to 3) trained.
    ctx = tf.distribute.get_replica_context()
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def batches(batch_size):
    rng = np.random.RandomState(0)
    while True:
        x = rng.rand(batch_size, 3).astype(np.float32)
        yield x, x.sum(axis=1, keepdims=True)


def value(v):  # a variable's value, in eager TensorFlow 2 and in TF 1's graph mode
    return v.numpy() if tf.executing_eagerly() else keras.backend.get_value(v)


def build():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])
    return model


strategy = tf.distribute.MirroredStrategy(devices)
with strategy.scope():
    model = build()
single = build()  # the same model on one device, outside the strategy



def dataset(batch_size):
    # The same generator, wrapped in a tf.data.Dataset: fit splits each batch between the replicas
    return tf.data.Dataset.from_generator(
        lambda: batches(batch_size), (tf.float32, tf.float32), ([None, 3], [None, 1]))


# A second fit with another batch size traces the training step again
for batch_size in (8, 12):
    history = model.fit(dataset(batch_size), steps_per_epoch=4, epochs=2, verbose=0)
    single.fit(dataset(batch_size), steps_per_epoch=4, epochs=2, verbose=0)
    kernel = model.trainable_variables[0]
    kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
    copies = [value(c) for c in strategy.experimental_local_results(kernel)]
    same = all(np.array_equal(copies[0], c) for c in copies)
    close = np.allclose(copies[0], value(single.trainable_variables[0]), atol=1e-5)
    seen = history.history["replica_id"]
    print(f"batch size {batch_size}: kernel on {len(copies)} devices, copies identical: {same}, "
          f"equal to one device: {close}, mean replica id per epoch: {seen}")
    assert len(copies) == 4 and same and close and seen == [1.5, 1.5]
# --8<-- [end:example]
