# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
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


def step(ids):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
    grads = tape.gradient(loss, [table])
    # A dense gradient of the table's shape on every worker: an ordinary all-reduce.
    grads = [tf.convert_to_tensor(g) for g in grads]
    optimizer.apply_gradients(zip(grads, [table]))


# Step 1, eagerly: worker i looks up rows i and i + 4.
run(step, args=(tf.constant([worker, worker + 4]),))
first_column = table.numpy()[:, 0].tolist()
print("worker", worker, "after step 1, table[:8, 0]:", first_column[:8])
assert first_column == [-0.5] * 8 + [0.0] * 12

# Step 2, in a tf.function: worker i looks up rows 0 .. 3 - i (4, 3, 2 and 1 ids).
train_step = tf.function(lambda ids: run(step, args=(ids,)))
train_step(tf.range(4 - worker))
first_column = table.numpy()[:, 0].tolist()
print("worker", worker, "after step 2, table[:8, 0]:", first_column[:8])
assert first_column == [-2.5, -2.0, -1.5, -1.0] + [-0.5] * 4 + [0.0] * 12
# --8<-- [end:example]
