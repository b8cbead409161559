# /// tfdist
# restart-kernel = "the cell above stopped with a collective error, and TensorFlow keeps that error for every later collective operation in the process until it restarts (its message ends: Restart your program to reset)"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def train(strategy, width):
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(width)(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
        model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])
    history = model.fit(np.ones((16, 3), "float32"), np.zeros((16, 1), "float32"), batch_size=8, epochs=1,
                        verbose=0)
    kernel = model.trainable_variables[0]
    kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
    copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
    seen = history.history["replica_id"][0]
    print(f"{width} hidden units: kernel {copies[0].shape} on {len(copies)} devices, "
          f"copies identical: {all(np.array_equal(copies[0], c) for c in copies)}, mean replica id: {seen}")
    assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies) and seen == 1.5


strategy = tf.distribute.MirroredStrategy()  # once per process
for width in (8, 4, 16):
    train(strategy, width)
# --8<-- [end:example]
