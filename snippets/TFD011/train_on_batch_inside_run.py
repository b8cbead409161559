# /// tfdist
# [expect]
# default = { raises = "RuntimeError", match = "Method requires being in cross-replica context, use get_replica_context\\(\\)\\.merge_call\\(\\)" }
# "tf1.15" = { not-applicable = "TF 1.15 in eager mode: a Keras model compiled under MirroredStrategy does not train at all there (train_on_batch outside strategy.run fails too, with a TypeError about a graph tensor)" }
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

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")

x, y = np.ones((8, 2), "float32"), np.zeros((8, 1), "float32")


def replica_fn():
    # train_on_batch (like fit) distributes the batch over the replicas itself
    return model.train_on_batch(x, y)


run(replica_fn)
print("trained")
# --8<-- [end:example]
