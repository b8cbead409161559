# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "A non-DistributedValues value tf\\.Tensor\\(2, shape=\\(\\), dtype=int32\\) cannot be reduced with the given reduce op ReduceOp\\.SUM" }
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
GLOBAL_BATCH = 8
PER_REPLICA = GLOBAL_BATCH // strategy.num_replicas_in_sync  # 2 examples per replica
dataset = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype="float32")).batch(GLOBAL_BATCH)


@tf.function
def step(batch):
    def replica_fn(x):
        return tf.reduce_sum(tf.square(x)), PER_REPLICA  # the count: the same Python int on every replica

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    loss_sums, counts = step(batch)
    print("counts:", counts)  # one value, not one per replica
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, loss_sums, axis=None)
    count = strategy.reduce(tf.distribute.ReduceOp.SUM, counts, axis=None)
    print("mean loss:", float(total) / float(count))
# --8<-- [end:example]
