# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "object of type 'DistributedDataset' has no len\\(\\)" }
# "tf1.15" = { raises = "TypeError", match = "object of type 'DistributedDatasetV1' has no len\\(\\)" }
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
dataset = tf.data.Dataset.from_tensor_slices(np.arange(16, dtype="float32")).batch(8)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

steps_per_epoch = len(dist_dataset)  # how many global batches per epoch?
# --8<-- [end:example]
