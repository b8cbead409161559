# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "module 'tensorflow.python.distribute.input_lib' has no attribute 'DistributedDatasetInterface'" }
# "tf2.5" = "passes"
# "tf2.4" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them for reasons unrelated to this entry (AssertionError, or a graph tensor passed to an eager function)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf
from tensorflow.python import keras  # the private copy of Keras inside TensorFlow, not tf.keras


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()
    return tf.fill(tf.shape(y_true)[:1], tf.cast(ctx.replica_id_in_sync_group, tf.float32))


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

x = np.ones((16, 3), np.float32)
y = np.ones((16, 1), np.float32)
history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
copies = [c.numpy() for c in strategy.experimental_local_results(model.trainable_variables[0])]
same = all(np.array_equal(copies[0], c) for c in copies)
seen = history.history["replica_id"][0]
print(f"kernel on {len(copies)} devices, copies identical: {same}, mean replica id: {seen}")
assert len(copies) == 4 and same and seen == 1.5
# --8<-- [end:example]
