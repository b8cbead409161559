# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did (TFD016): a model of other shapes in the cell above makes this one fail"
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


x = np.ones((16, 3), "float32")
strategy = tf.distribute.MirroredStrategy()  # one strategy object for every stage of the process

# Stage 1: a model with 2 outputs
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    features = tf.keras.layers.Dense(8, name="features")
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(features(inputs)))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
trained = features.get_weights()  # NumPy arrays: they belong to no strategy

# Stage 2: another model, of other shapes (a new head with 4 outputs), built in the SAME strategy's
# scope; the trained feature layer's values are copied in
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    features = tf.keras.layers.Dense(8, name="features")
    hidden = tf.keras.layers.Dense(16, activation="relu")(features(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(4)(hidden))
    features.set_weights(trained)
    copied = all(np.array_equal(a, b) for a, b in zip(features.get_weights(), trained))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss="mse", metrics=[replica_id])
history = model.fit(x, np.zeros((16, 4), "float32"), batch_size=8, epochs=1, verbose=0)

kernel = features.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("stage 2 model:", [tuple(w.shape) for w in model.get_weights()])
print("feature kernel:", type(kernel).__name__, "on", len(copies), "devices")
print("trained values copied in:", copied)
print("changed by fine-tuning:", not np.array_equal(trained[0], copies[0]))
print("copies identical:", all(np.array_equal(copies[0], c) for c in copies))
print("mean replica id seen by the metric:", history.history["replica_id"][0])
assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
assert copied and not np.array_equal(trained[0], copies[0]) and history.history["replica_id"][0] == 1.5
# --8<-- [end:example]
