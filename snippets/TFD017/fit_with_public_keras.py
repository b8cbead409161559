# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them for reasons unrelated to this entry (AssertionError, or a graph tensor passed to an eager function)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

keras = tf.keras  # the public Keras of this TensorFlow, not the private tensorflow.python.keras


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

x = np.ones((16, 3), np.float32)
y = np.ones((16, 1), np.float32)
for batch_size in (8, 4):  # a second fit with another batch size traces the training step again
    history = model.fit(x, y, batch_size=batch_size, epochs=1, verbose=0)
    kernel = model.trainable_variables[0]
    kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
    copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
    same = all(np.array_equal(copies[0], c) for c in copies)
    seen = history.history["replica_id"][0]
    print(f"batch size {batch_size}: kernel on {len(copies)} devices, copies identical: {same}, "
          f"mean replica id: {seen}")
    assert len(copies) == 4 and same and seen == 1.5
# --8<-- [end:example]
