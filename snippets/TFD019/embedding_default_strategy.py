# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging

import numpy as np
import tensorflow as tf


class KeepWarnings(logging.Handler):  # collects what TensorFlow's logger writes to the console
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


logged = KeepWarnings()
tf.get_logger().addHandler(logged)

strategy = tf.distribute.MirroredStrategy()  # the cross-device ops TensorFlow chooses


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over an epoch of full
    # batches is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def build():
    inputs = tf.keras.Input(shape=(2,), dtype="int32")
    vectors = tf.keras.layers.Embedding(50, 4, embeddings_initializer="ones")(inputs)
    outputs = tf.keras.layers.Dense(1, kernel_initializer="ones")(tf.keras.layers.Flatten()(vectors))
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=[replica_id])
    return model


with strategy.scope():
    model = build()
reference = build()  # the same model on one device, for comparison


def check(stage):
    table = model.layers[1].embeddings
    table = table.value if isinstance(getattr(table, "value", None), tf.Variable) else table  # Keras 3
    copies = [c.numpy() for c in strategy.experimental_local_results(table)]
    one_device = reference.layers[1].get_weights()[0]
    same = len(copies) == 4 and all(np.allclose(c, one_device, atol=1e-5) for c in copies)
    print(f"{stage}: {len(copies)} copies, rows changed: {int((one_device != 1).any(axis=1).sum())}, "
          f"every copy equals the one-device training: {same}")
    assert same


# Stage 1: every example looks up rows of its own; 16 examples, 2 full batches of 8
ids = np.arange(32, dtype="int32").reshape(16, 2)
y = np.linspace(0.0, 1.0, 16, dtype="float32").reshape(16, 1)
history = model.fit(ids, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
reference.fit(ids, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
print("mean replica id:", history.history["replica_id"][0])
assert history.history["replica_id"][0] == 1.5
check("stage 1")

# Stage 2: the replicas look up the same rows (0 to 5, several times in one batch), 2 more epochs
ids = (np.arange(32, dtype="int32") % 6).reshape(16, 2)
y = np.linspace(1.0, 0.0, 16, dtype="float32").reshape(16, 1)
model.fit(ids, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
reference.fit(ids, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
check("stage 2")
print("warnings about IndexedSlices:", [m for m in logged.messages if "IndexedSlices" in m])
# --8<-- [end:example]
