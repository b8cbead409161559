# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = { raises = "UnavailableError", match = "failed to connect to all addresses" }
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# "tf2.4" = { hangs = 60 }
# ///
# --8<-- [start:example]
import os
import time

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
LOST = os.path.join("..", "ps-lost")  # a folder every task of this local cluster shares
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                                  task_index=resolver.task_id, protocol="grpc", start=True)
    if resolver.task_type == "ps":
        while not os.path.exists(LOST):
            time.sleep(0.1)
        os._exit(1)  # the parameter server's machine is lost in the middle of training
    server.join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
with strategy.scope():
    w = tf.Variable(0.0)  # lives on the parameter server


@tf.function
def step():
    strategy.run(lambda: w.assign_add(1.0))


for _ in range(20):
    coordinator.schedule(step)
coordinator.join()
print("steps done:", int(w.numpy()))

open(LOST, "w").close()
time.sleep(3)
for _ in range(20):
    coordinator.schedule(step)
coordinator.join()  # raises: the variables' home is gone
# --8<-- [end:example]
