# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "UnavailableError", match = "Collective ops is aborted by: (failed to connect to all addresses|Error reported from /job:worker/task:3)" }
# "tf2.5" = { raises = "UnavailableError", match = "Collective ops is aborted by: cluster check alive failed, /job:worker/replica:0/task:[13] is down" }
# "tf2.4" = { raises = "UnavailableError", match = "Collective ops is aborted by: cluster check alive failed, /job:worker/replica:0/task:[13] is down" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

# Each machine writes the cluster from its own copy of the host list. On one
# machine the copy has worker 1 at a port it does not listen on.
launcher = json.loads(os.environ["TF_CONFIG"])
rank = launcher["task"]["index"]
hosts = list(launcher["cluster"]["worker"])
if rank == 3:
    host, port = hosts[1].rsplit(":", 1)
    hosts[1] = "%s:%d" % (host, int(port) + 100)  # a typo in the port
os.environ["TF_CONFIG"] = json.dumps(
    {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": rank}})

import tensorflow as tf  # noqa: E402

strategy = tf.distribute.MultiWorkerMirroredStrategy()

with strategy.scope():
    weight = tf.Variable(1.0)


@tf.function
def step(batch):
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.reduce_sum(batch) * weight)
    weight.assign_add(total)
    return total


print(strategy.run(step, args=(tf.ones([4]),)))
# --8<-- [end:example]
