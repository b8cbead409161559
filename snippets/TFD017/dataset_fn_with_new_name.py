# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { raises = "AttributeError", match = "'MirroredStrategy(V1)?' object has no attribute 'distribute_datasets_from_function'" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # the TF 1.x name


def dataset_fn(input_context):  # a global batch of 8: 2 examples for each replica
    return tf.data.Dataset.range(16).batch(input_context.get_per_replica_batch_size(8))


# The new spelling
dataset = strategy.distribute_datasets_from_function(dataset_fn)


@tf.function
def step(batch):
    return tf.distribute.get_replica_context().replica_id_in_sync_group, batch


examples = []
for batch in dataset:  # 2 steps
    ids, batches = run(step, args=(batch,))
    assert [int(i) for i in strategy.experimental_local_results(ids)] == [0, 1, 2, 3]
    examples += [int(v) for b in strategy.experimental_local_results(batches) for v in b]
print("examples seen by the 4 replicas:", sorted(examples))
assert sorted(examples) == list(range(16))
# --8<-- [end:example]
