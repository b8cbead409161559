# /// tfdist
# cluster = { chief = 1, worker = 3 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-task runner" }
# ///
# --8<-- [start:example]
import tensorflow as tf

# The same TF_CONFIG (a chief and 3 workers); eager execution, as TF 2 has it by default.
strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first, before any other TensorFlow call

with strategy.scope():
    weight = tf.Variable(0.0)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32))
    weight.assign_add(total)  # 1 + 2 + 3 + 4, the same on every task
    return ctx.replica_id_in_sync_group


for stage in range(2):
    ids = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step), axis=None)
print("replicas:", strategy.num_replicas_in_sync, "weight:", float(weight.numpy()))
assert strategy.num_replicas_in_sync == 4 and int(ids) == 0 + 1 + 2 + 3
assert float(weight.numpy()) == 20.0  # 2 steps of 10, on all 4 tasks
# --8<-- [end:example]
