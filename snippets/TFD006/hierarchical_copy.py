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
def step(shapes):
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        value = tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0  # 1, 2, 3 and 4
        tensors = [tf.fill(shape, value) for shape in shapes]  # like the gradients of a model
        return ctx.replica_id_in_sync_group, ctx.all_reduce(tf.distribute.ReduceOp.SUM, tensors)

    return run(replica_fn)


for shapes in ([[], [3, 2], [5]], [[4, 4], [7]]):  # a second step, with tensors of other shapes
    ids, totals = step(shapes)
    ids = [int(i) for i in strategy.experimental_local_results(ids)]
    per_replica = zip(*[strategy.experimental_local_results(t) for t in totals])
    values = [sorted({float(v) for t in tensors for v in tf.reshape(t, [-1]).numpy()}) for tensors in per_replica]
    print("shapes %s: replica ids %s, values after the sum on each replica %s" % (shapes, ids, values))
    assert ids == [0, 1, 2, 3] and values == [[10.0]] * 4
# --8<-- [end:example]
