# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "Shape mismatch in the collective instance" }
# "tf2.4" = { hangs = 60 }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
worker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]

# Each worker reads its own part of the data; worker 3's part is smaller
# (4 examples instead of 6), so it has 2 batches where the others have 3.
size = 4 if worker == 3 else 6
local = tf.data.Dataset.range(worker * 6, worker * 6 + size).map(
    lambda i: tf.cast(i, tf.float32)).batch(2)

with strategy.scope():
    total = tf.Variable(0.0)


@tf.function
def step(x):
    ctx = tf.distribute.get_replica_context()
    total.assign_add(ctx.all_reduce("sum", tf.reduce_sum(x)))  # waits for all 4 workers


for x in local:  # worker 3 leaves this loop one step before the others
    strategy.run(step, args=(x,))

done = strategy.reduce("sum", tf.constant(1.0), axis=None)  # e.g. a last metric or a barrier
print("workers done:", float(done), "total:", float(total.numpy()))
# --8<-- [end:example]
