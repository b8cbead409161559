# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "'DistributedDataset' object has no attribute 'map'" }
# "tf1.15" = { raises = "AttributeError", match = "'DistributedDatasetV1' object has no attribute 'map'" }
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
pixels = np.arange(16, dtype="float32")  # 16 examples, global batches of 8: 2 per replica
dataset = tf.data.Dataset.from_tensor_slices(pixels).batch(8)

dist_dataset = strategy.experimental_distribute_dataset(dataset)
dist_dataset = dist_dataset.map(lambda x: x / 255.0)  # the scaling added after distributing
# --8<-- [end:example]
