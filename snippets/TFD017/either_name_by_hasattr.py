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
assert strategy.num_replicas_in_sync == 4  # the replica count, under the name every release run here has
# Names that scripts for several machines use: every release run here has them too
print(tf.distribute.experimental.MultiWorkerMirroredStrategy.__name__,
      tf.distribute.experimental.CollectiveCommunication.AUTO)

# One spelling for every release: the new name where the strategy has it, the old one before
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2
distribute_datasets_from_function = (
    strategy.distribute_datasets_from_function if hasattr(strategy, "distribute_datasets_from_function")
    else strategy.experimental_distribute_datasets_from_function)


@tf.function
def step(batch):
    ctx = tf.distribute.get_replica_context()
    return ctx.replica_id_in_sync_group, tf.reduce_sum(tf.cast(batch, tf.float32) ** 2)


# A second pass with another global batch size traces step again
for global_batch, size in ((8, 16), (12, 24)):
    def dataset_fn(input_context):
        return tf.data.Dataset.range(size).batch(input_context.get_per_replica_batch_size(global_batch))

    total = 0.0
    for batch in distribute_datasets_from_function(dataset_fn):
        ids, sums = run(step, args=(batch,))
        assert [int(i) for i in strategy.experimental_local_results(ids)] == [0, 1, 2, 3]
        total += float(strategy.reduce(tf.distribute.ReduceOp.SUM, sums, axis=None))
    expected = float(sum(i * i for i in range(size)))  # the same sum on one device
    print("global batch %d: sum of squares %.0f, on one device %.0f" % (global_batch, total, expected))
    assert total == expected
# --8<-- [end:example]
