# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = { raises = "ValueError", match = "`task_type` 'chief' not found in cluster_spec", task = "chief:0" }
# "tf2.4" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import json
import os

# A start script writes the cluster from its --worker_hosts and --ps_hosts
# lists only; the coordinator is started as the chief, which no list names.
launcher = json.loads(os.environ["TF_CONFIG"])
os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"worker": launcher["cluster"]["worker"], "ps": launcher["cluster"]["ps"]},
    "task": launcher["task"],  # {"type": "chief", "index": 0} on the coordinator
})

import tensorflow as tf  # noqa: E402

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

with strategy.scope():
    w = tf.Variable(tf.zeros([3]))


@tf.function
def step():
    strategy.run(lambda: w.assign_add(tf.ones([3])))


for _ in range(100):
    coordinator.schedule(step)
coordinator.join()
print("w =", w.numpy())
assert (w.numpy() == 100).all()  # 100 steps, each adds 1: they all ran
# --8<-- [end:example]
