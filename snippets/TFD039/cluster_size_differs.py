# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InternalError", match = "group with size ?5, but that group has size 4|group with size ?4, but that group has size 5|group_size 5 and group_key ?1 but that group has size 4|group_size 4 and group_key ?1 but that group has size 5" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

# What a start script does on each machine: the scheduler gives the worker its
# rank, and the cluster is written from this machine's copy of the host list.
launcher = json.loads(os.environ["TF_CONFIG"])
rank = launcher["task"]["index"]
hosts = list(launcher["cluster"]["worker"])
if rank == 3:
    # One machine's copy still lists a fifth host, taken out of the job since.
    hosts.append("localhost:1")
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
