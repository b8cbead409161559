# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
produced_by = set()  # which task's Python process ran the generator


def rows():
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    produced_by.add("%s:%d" % (task["type"], task["index"]))
    while True:
        yield [1.0, 1.0, 1.0]


def dataset_fn():
    # Built inside dataset_fn, as it must be; but the generator is Python, and Python runs
    # only in the process that defined it.
    return tf.data.Dataset.from_generator(
        rows, output_signature=tf.TensorSpec([3], tf.float32)).batch(4)


with strategy.scope():
    w = tf.Variable(tf.zeros([3]))

iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))


@tf.function
def step(it):
    def replica_fn(batch):
        w.assign_add(tf.reduce_sum(batch, 0))
    strategy.run(replica_fn, args=(next(it),))


for _ in range(100):
    coordinator.schedule(step, args=(iterator,))
coordinator.join()
print("w =", w.numpy())
print("rows produced by the Python of:", sorted(produced_by))
assert (w.numpy() == 400).all() and produced_by == {"chief:0"}
# --8<-- [end:example]
