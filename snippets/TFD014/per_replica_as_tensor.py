# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "It looks like you are using a PerReplica object while not inside a replica context" }
# "tf2.5" = { raises = "ValueError", match = "Attempt to convert a value \\(PerReplica:\\{[\\s\\S]*with an unsupported type \\(<class 'tensorflow\\.python\\.distribute\\.values\\.PerReplica'>\\) to a Tensor" }
# "tf2.4" = { raises = "ValueError", match = "Attempt to convert a value \\(PerReplica:\\{[\\s\\S]*with an unsupported type \\(<class 'tensorflow\\.python\\.distribute\\.values\\.PerReplica'>\\) to a Tensor" }
# "tf1.15" = { raises = "ValueError", match = "Attempt to convert a value \\(PerReplica:\\{[\\s\\S]*with an unsupported type \\(<class 'tensorflow\\.python\\.distribute\\.values\\.PerReplica'>\\) to a Tensor" }
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
        return tf.reduce_mean(tf.square(x))  # this replica's loss

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    losses = step(batch)  # a PerReplica: one loss per replica, not a tensor
    print("loss:", float(tf.reduce_mean(losses)))
# --8<-- [end:example]
