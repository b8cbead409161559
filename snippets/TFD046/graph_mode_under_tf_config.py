# /// tfdist
# cluster = { chief = 1, worker = 3 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "Cannot assign a device for operation .* was explicitly assigned to /job:chief/replica:0/task:0/device:CPU:0 but available devices are \\[ /job:localhost/" }
# "tf1.15" = { raises = "ValueError", match = "In-graph multi-worker training with `MirroredStrategy` is not supported" }
# "tf2.4" = { raises = "ValueError", match = "In-graph multi-worker training with `MirroredStrategy` is not supported" }
# "tf2.5" = { raises = "ValueError", match = "In-graph multi-worker training with `MirroredStrategy` is not supported" }
# ///
# --8<-- [start:example]
import tensorflow as tf

tf.compat.v1.disable_eager_execution()  # graph mode: a TF 1 program, or a TF 2 one with eager turned off

# The launcher set TF_CONFIG for this task: a chief and 3 workers.
strategy = tf.distribute.MirroredStrategy()
print("replicas:", strategy.num_replicas_in_sync)
print("devices:", strategy.extended.worker_devices)

with strategy.scope():
    weight = tf.Variable(tf.ones([3, 1]), name="weight")

with tf.compat.v1.Session() as session:  # a session of this process alone
    session.run(tf.compat.v1.global_variables_initializer())
    print(session.run(weight))
# --8<-- [end:example]
