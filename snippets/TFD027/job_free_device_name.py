# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

config = json.loads(os.environ["TF_CONFIG"])  # as the launcher set it, not rewritten
assert set(config["cluster"]) <= {"chief", "worker", "ps", "evaluator"}, config["cluster"]
me = config["task"]  # e.g. {"type": "worker", "index": 2}
assert me["type"] in config["cluster"], me

strategy = tf.distribute.MultiWorkerMirroredStrategy()

# No job in the name: "/cpu:0" is the CPU of whichever task runs the op,
# here /job:worker/replica:0/task:<index>/device:CPU:0.
HOST_CPU = "/cpu:0"

with strategy.scope():
    weight = tf.Variable(1.0)


@tf.function
def step(batch):
    with tf.device(HOST_CPU):
        features = tf.identity(batch) * 2.0
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.reduce_sum(features) * weight)
    weight.assign_add(total)  # the same all-reduced value on every worker
    return features, total


for size in (4, 6):  # a second step with another batch shape: traced again
    features, total = strategy.run(step, args=(tf.ones([size]),))
    features = strategy.experimental_local_results(features)[0]
    # 4 replicas, each sums 2.0 * size, times the weight before the step
    print("batch", size, "all-reduced:", float(total.numpy()), "pinned op ran on:", features.device)
    assert features.device.endswith("/job:%s/replica:0/task:%d/device:CPU:0" % (me["type"], me["index"]))
assert strategy.num_replicas_in_sync == 4
assert float(total.numpy()) == 4 * 12.0 * 33.0, float(total.numpy())  # weight 1 + 32 after the first step
assert float(weight.numpy()) == 1.0 + 32.0 + 4 * 12.0 * 33.0, float(weight.numpy())
# --8<-- [end:example]
