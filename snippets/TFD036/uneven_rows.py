# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# "tf2.0.4" = { raises = "InternalError", match = 'Inconsistent output shapes, got \[[\d,]+\], but expected is \[[\d,]+\]|RecvBufResponse returned \d+ bytes where to_tensor expected \d+' }
# "tf2.1.0" = { raises = "InvalidArgumentError", match = 'Shape mismatch in the collective instance \d+\. [\s\S]*/CollectiveGather' }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

# The oldest TF 2 releases name these tf.distribute.experimental.MultiWorkerMirroredStrategy
# and Strategy.experimental_run_v2; the program is otherwise the same on every release.
Strategy = getattr(tf.distribute, "MultiWorkerMirroredStrategy", None) or \
    tf.distribute.experimental.MultiWorkerMirroredStrategy
strategy = Strategy()
run = getattr(strategy, "run", None) or strategy.experimental_run_v2
worker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]

with strategy.scope():
    table = tf.Variable(tf.zeros([20, 2]))  # an embedding table, mirrored on every worker
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)


@tf.function
def train_step(ids):
    def step(ids):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
        grads = tape.gradient(loss, [table])  # a tf.IndexedSlices with one row per id
        optimizer.apply_gradients(zip(grads, [table]))
    run(step, args=(ids,))


# Worker i looks up rows 0 .. i: the workers' sparse gradients have 1, 2, 3 and 4 rows,
# as when each worker's batch holds a different number of ids (variable-length features).
train_step(tf.range(worker + 1))

first_column = table.numpy()[:, 0].tolist()
print("worker", worker, "table[:4, 0]:", first_column[:4])
assert first_column == [-2.0, -1.5, -1.0, -0.5] + [0.0] * 16  # row 0 was looked up by all 4 workers
# --8<-- [end:example]
