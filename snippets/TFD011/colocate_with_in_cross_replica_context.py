# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "handle`? is not available outside the replica context or a `tf\\.distribute\\.Strategy\\.update\\(\\)` call" }
# "tf1.13.2" = { raises = "AssertionError", match = "^$" }
# ///
# --8<-- [start:example]
import tensorflow as tf

with tf.Graph().as_default():  # graph code, as TF 1 programs and an Estimator's model_fn build it
    with tf.compat.v1.Session() as session:  # this machine's devices: every GPU, or else the CPU's
        found = session.list_devices()
    devices = [d.name for d in found if d.device_type == "GPU"] or [d.name for d in found if d.device_type == "CPU"]
    strategy = tf.distribute.MirroredStrategy(devices)

    with strategy.scope():
        weight = tf.Variable(2.0, name="weight")
        print("replica context:", tf.distribute.get_replica_context())  # None: the cross-replica context
        with tf.compat.v1.colocate_with(weight):  # put the next op beside the variable, outside strategy.run
            doubled = weight * 2.0
    print("doubled:", doubled)
# --8<-- [end:example]
