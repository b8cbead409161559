# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-worker runner" }
# ///
# --8<-- [start:example]
import tensorflow as tf

# First thing in the program, before any tensor, tf.config call or model:
strategy = tf.distribute.MultiWorkerMirroredStrategy()

with strategy.scope():
    weight = tf.Variable(0.0)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    grad = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32))
    weight.assign_add(grad)  # same value on every worker: 1+2+3+4
    return ctx.replica_id_in_sync_group


for epoch in range(2):  # a second stage after the first
    rid = strategy.run(step)
    all_ids = strategy.reduce(tf.distribute.ReduceOp.SUM, rid, axis=None)
assert strategy.num_replicas_in_sync == 4
assert int(all_ids) == 0 + 1 + 2 + 3, int(all_ids)  # all 4 replicas ran
assert float(weight.numpy()) == 20.0, float(weight.numpy())  # 2 steps x 10, equal on every worker
print("replicas:", strategy.num_replicas_in_sync, "weight:", float(weight.numpy()))
# --8<-- [end:example]
