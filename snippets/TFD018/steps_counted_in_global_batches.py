# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging
import math
import warnings

import numpy as np
import tensorflow as tf

PER_REPLICA_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
global_batch = PER_REPLICA_BATCH * strategy.num_replicas_in_sync  # 16: what one training step takes


def data(n):  # n examples in global batches; the last one is smaller when n is no multiple of 16
    x = np.linspace(0, 1, 3 * n, dtype="float32").reshape(n, 3)
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(global_batch)


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
    # 64 training and 32 validation examples: 4 and 2 global batches; repeat() so that no epoch runs dry
    history = model.fit(data(64).repeat(), epochs=3, steps_per_epoch=math.ceil(64 / global_batch),
                        validation_data=data(32).repeat(), validation_steps=math.ceil(32 / global_batch),
                        callbacks=[CountBatches()], verbose=0)
    print("batches per epoch:", per_epoch, "mean replica id per epoch:", history.history["replica_id"],
          "validated epochs:", len(history.history["val_loss"]))
    assert per_epoch == [4, 4, 4] and history.history["replica_id"] == [1.5] * 3
    assert len(history.history["val_loss"]) == 3

    # The variation: 70 examples, so the last global batch holds 6 (one replica gets none of them), and a second fit
    per_epoch.clear()
    model.fit(data(70).repeat(), epochs=2, steps_per_epoch=math.ceil(70 / global_batch),
              callbacks=[CountBatches()], verbose=0)
warned += [str(w.message) for w in caught]
kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("70 examples: batches per epoch:", per_epoch, "kernel copies:", len(copies),
      "identical:", all(np.array_equal(copies[0], c) for c in copies))
print("warnings about running out of data:", sum("ran out of data" in m for m in warned))
assert per_epoch == [5, 5] and len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
assert not any("ran out of data" in m for m in warned)
# --8<-- [end:example]
