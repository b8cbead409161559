# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging
import warnings

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
global_batch = 4 * strategy.num_replicas_in_sync  # 16: what one training step takes

x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
dataset = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True)))
dataset = dataset.filter(lambda x, y: tf.reduce_all(x >= 0)).batch(global_batch)  # keeps all 64: 4 batches
print("batches the dataset says it holds:", int(dataset.cardinality()), "(-2: unknown, because of filter)")


def replica_id(y_true, y_pred):  # its mean is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


class CountBatches(tf.keras.callbacks.Callback):  # the batches each epoch really trained on
    def on_epoch_begin(self, epoch, logs=None):
        per_epoch.append(0)

    def on_train_batch_end(self, batch, logs=None):
        per_epoch[-1] += 1


class Keep(logging.Handler):  # Keras 2 logs "ran out of data" through TensorFlow's logger
    def emit(self, record):
        warned.append(record.getMessage())


with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

per_epoch, warned = [], []
tf.get_logger().addHandler(Keep())
with warnings.catch_warnings(record=True) as caught:  # Keras 3 issues a Python warning
    warnings.simplefilter("always")
    history = model.fit(dataset, epochs=3, callbacks=[CountBatches()], verbose=0)  # no steps_per_epoch
warned += [str(w.message) for w in caught]

print("batches per epoch:", per_epoch, "mean replica id per epoch:", history.history["replica_id"])
print("warnings about running out of data:", sum("ran out of data" in m for m in warned))
assert per_epoch == [4, 4, 4] and history.history["replica_id"] == [1.5] * 3
# --8<-- [end:example]
