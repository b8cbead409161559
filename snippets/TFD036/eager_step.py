# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.4" = { raises = "RuntimeError", match = "all_reduce_indexed_slices in eager mode is not supported" }
# "tf2.5" = { raises = "RuntimeError", match = "all_reduce_indexed_slices in eager mode is not supported" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
worker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]

with strategy.scope():
    table = tf.Variable(tf.zeros([20, 2]))  # an embedding table, mirrored on every worker
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)


def step(ids):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
    grads = tape.gradient(loss, [table])  # a tf.IndexedSlices: only the rows looked up
    optimizer.apply_gradients(zip(grads, [table]))


ids = tf.constant([worker, worker + 4])  # worker i looks up rows i and i + 4
strategy.run(step, args=(ids,))  # called eagerly: no tf.function around the step

first_column = table.numpy()[:, 0].tolist()
print("worker", worker, "table[:, 0]:", first_column)
assert first_column == [-0.5] * 8 + [0.0] * 12  # the 8 rows of all 4 workers, once each
# --8<-- [end:example]
