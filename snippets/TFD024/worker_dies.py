# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "UnavailableError", match = "Collective ops is aborted by" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

task = json.loads(os.environ["TF_CONFIG"])["task"]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable(0.0)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce("sum", tf.constant(1.0))
    w.assign_add(total)
    return total


for n in range(6):
    if task["index"] == 3 and n == 3:
        os._exit(1)  # worker 3 dies (preempted, OOM-killed, node lost) after 3 steps
    strategy.run(step)
# --8<-- [end:example]
