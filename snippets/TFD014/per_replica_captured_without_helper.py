# /// tfdist
# [expect]
# default = "passes"
# "tf2.5" = { raises = "TypeError", match = "Failed to convert object of type <class '[\\w.]*PerReplica'> to Tensor" }
# "tf2.4" = { raises = "TypeError", match = "Failed to convert object of type <class '[\\w.]*PerReplica'> to Tensor" }
# "tf1.15" = { raises = "TypeError", match = "Failed to convert object of type <class '[\\w.]*PerReplica'> to Tensor" }
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
dataset = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype="float32")).batch(8)


@tf.function
def step(batch):
    def replica_fn(x):
        return tf.reduce_sum(tf.square(batch))  # `batch`, the whole PerReplica, without a helper

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    sums = [float(s) for s in strategy.experimental_local_results(step(batch))]
print("each replica's sum of squares:", sums)
assert sums == [0 + 1, 4 + 9, 16 + 25, 36 + 49], sums  # each replica squared its own 2 examples
# --8<-- [end:example]
