# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "'NoneType' object has no attribute 'merge_call'" }
# "tf2.5" = { raises = "RuntimeError", match = "apply_gradients\\(\\) cannot be called in cross-replica context" }
# "tf2.4" = { raises = "RuntimeError", match = "apply_gradients\\(\\) cannot be called in cross-replica context" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)

with strategy.scope():
    w = tf.Variable([1.0, 1.0])
    optimizer = tf.keras.optimizers.SGD(0.1)
    print("replica context:", tf.distribute.get_replica_context())  # None: cross-replica context
    # in the scope but outside strategy.run
    optimizer.apply_gradients([(tf.constant([1.0, 1.0]), w)])
print("w:", w.numpy().tolist())
# --8<-- [end:example]
