# /// tfdist
# [expect]
# default = { prints = "copies of total: \\[1\\.0, 2\\.0, 3\\.0, 4\\.0\\]" }
# "tf1.15" = { raises = "ValueError", match = "You must specify an aggregation method to update a MirroredVariable in Replica Context" }
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
    total = tf.Variable(0.0)  # an accumulator, created with no `aggregation=`


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        # each replica adds its own value (1, 2, 3, 4): the sum over the replicas is 10
        total.assign_add(tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)

    run(replica_fn)


step()
print("copies of total:", [float(v.numpy()) for v in strategy.experimental_local_results(total)])
print("total read:", float(total.numpy()))
# --8<-- [end:example]
