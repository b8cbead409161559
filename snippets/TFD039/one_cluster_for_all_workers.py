# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import hashlib
import json
import os

# The launcher writes the whole cluster once, from one host list, and every
# machine gets that same list; only "task" differs from worker to worker.
config = json.loads(os.environ["TF_CONFIG"])
rank = config["task"]["index"]
cluster = json.dumps(config["cluster"], sort_keys=True)

import tensorflow as tf  # noqa: E402

strategy = tf.distribute.MultiWorkerMirroredStrategy()

# A startup check: every worker adds the fingerprint of the cluster it was given.
# The sum is 4 times a worker's own fingerprint only if all four were the same.
fingerprint = int(hashlib.sha256(cluster.encode()).hexdigest()[:12], 16)


@tf.function
def agree():
    ctx = tf.distribute.get_replica_context()
    mine = tf.constant(float(fingerprint), tf.float64)
    return ctx.all_reduce(tf.distribute.ReduceOp.SUM, mine), ctx.replica_id_in_sync_group


total, replica = strategy.run(agree)
replica = int(strategy.experimental_local_results(replica)[0])
assert float(total.numpy()) == 4.0 * fingerprint, "the workers were given different clusters"
assert replica == rank, (replica, rank)  # worker <rank> is replica <rank>: one order everywhere
print("all 4 workers agree on the cluster")

with strategy.scope():
    weight = tf.Variable(1.0)


@tf.function
def step(batch):
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.reduce_sum(batch) * weight)
    weight.assign_add(total)
    return total


for size in (4, 6):  # a second step with another batch shape: traced again
    total = strategy.run(step, args=(tf.ones([size]),))
    print("batch", size, "all-reduced:", float(total.numpy()))
assert strategy.num_replicas_in_sync == 4
assert float(total.numpy()) == 4 * 6.0 * 17.0, float(total.numpy())  # weight 1 + 16 after the first step
assert float(weight.numpy()) == 1.0 + 16.0 + 4 * 6.0 * 17.0, float(weight.numpy())
# --8<-- [end:example]
