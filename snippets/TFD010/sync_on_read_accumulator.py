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
    # one copy per replica, updated without any communication; read outside strategy.run, the copies are summed
    total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        total.assign_add(tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)

    run(replica_fn)


for _ in range(2):
    step()
copies = [float(v.numpy()) for v in strategy.experimental_local_results(total)]
print("copies of total:", copies)
read = float(total.read_value())  # outside strategy.run: the copies, aggregated (SUM)
print("total read:", read)
assert copies == [2.0, 4.0, 6.0, 8.0] and read == 20.0
total.assign(0.0)  # a reset outside strategy.run sets every copy to 0
print("after reset:", [float(v.numpy()) for v in strategy.experimental_local_results(total)])
assert [float(v.numpy()) for v in strategy.experimental_local_results(total)] == [0.0] * 4
step()  # the next epoch's first step: each replica adds to its own copy again
copies = [float(v.numpy()) for v in strategy.experimental_local_results(total)]
print("after 1 more step:", copies, "read:", float(total.read_value()))
assert copies == [1.0, 2.0, 3.0, 4.0] and float(total.read_value()) == 10.0
# --8<-- [end:example]
