# /// tfdist
# configures-devices = "it splits the CPU into 4 logical devices itself, the subject of its entry"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.config.set_logical_device_configuration (only tf.config.experimental.set_virtual_device_configuration), and its MirroredStrategy() counts GPUs only" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def four_replicas():
    """Make 4 devices for MirroredStrategy(), before anything runs on TensorFlow: 4 GPUs if the
    machine has them, else its first GPU split into 4 logical GPUs, else the CPU split into 4."""
    gpus = tf.config.list_physical_devices("GPU")  # lists devices, starts nothing
    if len(gpus) >= 4:
        tf.config.set_visible_devices(gpus[:4], "GPU")
    elif gpus:
        tf.config.set_visible_devices(gpus[0], "GPU")
        tf.config.set_logical_device_configuration(
            gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=4096) for _ in range(4)])
    else:
        tf.config.set_logical_device_configuration(
            tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration() for _ in range(4)])


def check(strategy, model):
    devices = strategy.extended.worker_devices
    assert strategy.num_replicas_in_sync == 4 and len(set(devices)) == 4, devices
    kernel = model.trainable_variables[0]
    kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
    copies = strategy.experimental_local_results(kernel)
    assert len({c.device for c in copies}) == 4, "the kernel is not mirrored on 4 devices"
    assert all(np.array_equal(copies[0].numpy(), c.numpy()) for c in copies), "the copies differ"
    ids = strategy.run(tf.function(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))
    assert sorted(int(i) for i in strategy.experimental_local_results(ids)) == [0, 1, 2, 3]


four_replicas()  # first, before any other TensorFlow call
strategy = tf.distribute.MirroredStrategy()
print("replicas:", strategy.num_replicas_in_sync)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
x, y = np.ones((18, 3), "float32"), np.ones((18, 1), "float32")
model.fit(x, y, batch_size=8, verbose=0)
check(strategy, model)

# The same cell run again (a notebook): the same configuration is accepted after the runtime
# started, and a second fit with another batch size (a last batch of 2 examples) still runs on 4.
four_replicas()
model.fit(x, y, batch_size=4, epochs=2, verbose=0)
check(strategy, model)
print("4 replicas on", len(set(strategy.extended.worker_devices)), "devices, kernel mirrored")
# --8<-- [end:example]
