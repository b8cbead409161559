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

# Chosen by hand: the all-reduce designed for the GPUs of a DGX-1
strategy = tf.distribute.MirroredStrategy(devices, cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0))
        return ctx.replica_id_in_sync_group, total

    return run(replica_fn)


ids, totals = step()
ids = [int(i) for i in strategy.experimental_local_results(ids)]
totals = [float(t) for t in strategy.experimental_local_results(totals)]
print("replica ids:", ids)
print("sum on each replica:", totals)
assert ids == [0, 1, 2, 3] and totals == [4.0, 4.0, 4.0, 4.0]
# --8<-- [end:example]
