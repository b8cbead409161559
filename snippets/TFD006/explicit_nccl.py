# /// tfdist
# [expect]
# default = { raises = "InvalidArgumentError", match = "No OpKernel was registered to support Op 'NcclAllReduce'" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

# NCCL chosen by hand: it all-reduces between NVIDIA GPUs only
strategy = tf.distribute.MirroredStrategy(devices, cross_device_ops=tf.distribute.NcclAllReduce())
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0))

    return run(replica_fn)


print("sum on each replica:", [float(t) for t in strategy.experimental_local_results(step())])
# --8<-- [end:example]
