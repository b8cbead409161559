# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def build_model():
    inputs = tf.keras.Input(shape=(3,))
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


x, y = np.ones((16, 3), "float32"), np.zeros((16, 2), "float32")

# Stage 1: training
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
trained = model.get_weights()  # the values, as NumPy arrays: they belong to no strategy

# Stage 2: a new strategy gets a new model of its own, with the trained values copied in
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    model.set_weights(trained)
    copied = all(np.array_equal(a, b) for a, b in zip(model.get_weights(), trained))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss="mse", metrics=[replica_id])
history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)

kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("kernel:", type(kernel).__name__, "on", len(copies), "devices")
print("trained values copied in:", copied)
print("changed by fine-tuning:", not np.array_equal(trained[0], copies[0]))
print("copies identical:", all(np.array_equal(copies[0], c) for c in copies))
print("mean replica id seen by the metric:", history.history["replica_id"][0])
assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
assert copied and not np.array_equal(trained[0], copies[0]) and history.history["replica_id"][0] == 1.5
# --8<-- [end:example]
