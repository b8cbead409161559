# /// tfdist
# configures-devices = "it splits the CPU into logical devices itself, the subject of its entry"
# [expect]
# default = { raises = "RuntimeError", match = "^Virtual devices cannot be modified after being initialized$" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.config.set_logical_device_configuration (only tf.config.experimental.set_virtual_device_configuration), and its MirroredStrategy() counts GPUs only" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def split_cpu(n):
    """Split the CPU into n logical devices: MirroredStrategy() then has n replicas."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(n)])


def train(strategy):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((16, 3), "float32"), np.ones((16, 1), "float32"), batch_size=8, verbose=0)
    return model


split_cpu(4)  # before anything ran: this works
strategy = tf.distribute.MirroredStrategy()
print("replicas:", strategy.num_replicas_in_sync)
model = train(strategy)

# The next experiment, in the same process (a notebook cell edited and run again): 8 replicas.
split_cpu(8)
strategy = tf.distribute.MirroredStrategy()
model = train(strategy)
# --8<-- [end:example]
