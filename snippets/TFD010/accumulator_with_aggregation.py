# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name

with strategy.scope():
    # the 4 updates are summed, and the sum is applied to every copy
    total = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    # a step counter: replica 0's update is applied to every copy, the others' are dropped
    steps = tf.Variable(0, dtype=tf.int64, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
    # the same counter with SUM: the 4 replicas' increments are added up
    summed = tf.Variable(0, dtype=tf.int64, aggregation=tf.VariableAggregation.SUM)


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        total.assign_add(tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)
        one = tf.constant(1, tf.int64)  # a tensor made on each replica
        steps.assign_add(one)
        summed.assign_add(one)

    run(replica_fn)


def copies():
    return {name: [v.numpy().item() for v in strategy.experimental_local_results(var)]
            for name, var in (("total", total), ("steps", steps), ("summed", summed))}


for _ in range(2):  # 2 steps
    step()
for name, values in copies().items():
    print("copies of %s:" % name, values)
assert copies() == {"total": [20.0] * 4, "steps": [2] * 4, "summed": [8] * 4}

for var in (total, steps, summed):  # a reset between epochs, outside strategy.run: every copy
    var.assign(tf.zeros_like(var))
step()  # the next epoch's first step
print("after a reset and 1 more step:", copies())
assert copies() == {"total": [10.0] * 4, "steps": [1] * 4, "summed": [4] * 4}
# --8<-- [end:example]
