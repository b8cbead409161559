# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name
from_function = (getattr(strategy, "distribute_datasets_from_function", None)  # older releases:
                 or strategy.experimental_distribute_datasets_from_function)  # the experimental_ name
replicas = strategy.num_replicas_in_sync
pixels = np.arange(16, dtype="float32")
scaled = pixels / np.float32(255.0)  # what every example should be once it reaches a replica


def scale(x):
    return x / 255.0


@tf.function
def step(batch):
    def replica_fn(x):  # hands back which replica ran and the examples it got
        return tf.distribute.get_replica_context().replica_id_in_sync_group, x

    return run(replica_fn, args=(batch,))


def epoch(dist_dataset):  # per step, the examples of each replica, in replica order
    parts = []
    for batch in dist_dataset:
        ids, xs = step(batch)
        assert [int(i) for i in strategy.experimental_local_results(ids)] == list(range(replicas))
        parts.append([t.numpy() for t in strategy.experimental_local_results(xs)])
    return parts


for global_batch in (8, 12):  # 12: 3 examples per replica, and a last, partial global batch of 4
    per_replica = global_batch // replicas

    # 1. The whole tf.data pipeline first (map, batch with the global batch size), then distribute.
    dataset = tf.data.Dataset.from_tensor_slices(pixels).map(scale).batch(global_batch)
    steps_per_epoch = int(tf.data.experimental.cardinality(dataset))  # the tf.data.Dataset knows it
    dist_dataset = strategy.experimental_distribute_dataset(dataset)
    for n in (1, 2):  # a second epoch over the same distributed dataset
        parts = epoch(dist_dataset)
        assert len(parts) == steps_per_epoch
        for i, step_parts in enumerate(parts):  # each step: the global batch, split in replica order
            assert all(len(p) <= per_replica for p in step_parts)
            np.testing.assert_array_equal(np.concatenate(step_parts), scaled[i * global_batch:(i + 1) * global_batch])
        print("batch %d, epoch %d: examples per replica and step %s" % (global_batch, n, [[len(p) for p in s] for s in parts]))

    # 2. Or the pipeline inside dataset_fn, batched with the per-replica batch size.
    def dataset_fn(context):
        ds = tf.data.Dataset.from_tensor_slices(pixels)
        ds = ds.shard(context.num_input_pipelines, context.input_pipeline_id)  # one pipeline per worker
        return ds.map(scale).batch(context.get_per_replica_batch_size(global_batch))

    dist_dataset = from_function(dataset_fn)
    for n in (1, 2):
        parts = epoch(dist_dataset)
        seen = np.concatenate([p for s in parts for p in s])
        np.testing.assert_array_equal(np.sort(seen), scaled)  # every example once, every epoch
        assert all(len(p) <= per_replica for s in parts for p in s)
        print("batch %d from a function, epoch %d: %s" % (global_batch, n, [[len(p) for p in s] for s in parts]))
# --8<-- [end:example]
