# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Flattening a PerReplica to components is not supported in replica context" }
# "tf1.15" = { raises = "StagingError", match = "<built-in function Flatten> returned a result with an error set" }
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
def loss_fn(x):  # a helper that is a tf.function of its own
    return tf.reduce_sum(tf.square(x))


@tf.function
def step(batch):
    def replica_fn(x):
        return loss_fn(batch)  # `batch`, the whole PerReplica, instead of `x`

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    print(strategy.experimental_local_results(step(batch)))
# --8<-- [end:example]
