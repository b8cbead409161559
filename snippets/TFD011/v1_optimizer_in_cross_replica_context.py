# /// tfdist
# [expect]
# default = { raises = "RuntimeError", match = "Use `_distributed_apply\\(\\)` instead of `apply_gradients\\(\\)` in a cross-replica context" }
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
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # a TF 1 optimizer
    # in the scope but outside strategy.run: a cross-replica context
    optimizer.apply_gradients([(tf.constant([1.0, 1.0]), w)])
print("w:", w.numpy().tolist())
# --8<-- [end:example]
