# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "explicitly assigned to /job:localhost/replica:0/task:0/device:CPU:0 but available devices are \\[ /job:worker/replica:0/task:\\d/device:CPU:0" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # reads TF_CONFIG: this process is /job:worker

# The CPU's full name, as a one-machine run lists it, kept from that run:
HOST_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"

with strategy.scope():
    weight = tf.Variable(1.0)


@tf.function
def step(batch):
    with tf.device(HOST_CPU):  # input preprocessing pinned to the host's CPU
        features = tf.identity(batch) * 2.0
    ctx = tf.distribute.get_replica_context()
    return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.reduce_sum(features) * weight)


print(strategy.run(step, args=(tf.ones([4]),)))
# --8<-- [end:example]
