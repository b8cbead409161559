# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "unsupported format string passed to PerReplica\\.__format__" }
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
        return tf.reduce_sum(tf.square(x))  # this replica's share of the loss

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    loss = step(batch)
    print(loss)  # no error: it prints one value per replica
    print(f"loss: {loss:.1f}")  # a number format is refused
# --8<-- [end:example]
