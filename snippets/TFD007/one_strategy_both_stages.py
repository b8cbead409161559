# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did (TFD016): a model of other shapes in the cell above makes this one fail"
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
strategy = tf.distribute.MirroredStrategy()  # one strategy object for every stage

# Stage 1: training
with strategy.scope():
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
after_stage_1 = model.get_weights()[0]

# Stage 2: fine-tuning, compiled again in the scope of the same strategy
with strategy.scope():
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss="mse", metrics=[replica_id])
history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)

kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("kernel:", type(kernel).__name__, "on", len(copies), "devices")
print("changed by fine-tuning:", not np.array_equal(after_stage_1, copies[0]))
print("copies identical:", all(np.array_equal(copies[0], c) for c in copies))
print("mean replica id seen by the metric:", history.history["replica_id"][0])
assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
assert not np.array_equal(after_stage_1, copies[0]) and history.history["replica_id"][0] == 1.5
# --8<-- [end:example]
