# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 2 }
# [expect]
# default = "passes"
# "tf2.4" = { raises = "ValueError", match = "Can't convert node .*_UserObject.* to tensor" }
# "tf2.5" = { raises = "ValueError", match = "Loading `ShardedVariable` is not supported" }
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import os

import numpy as np
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(
    resolver,
    variable_partitioner=tf.distribute.experimental.partitioners.FixedShardsPartitioner(2))
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)


class Embedding(tf.Module):
    def __init__(self):
        super().__init__()
        self.table = tf.Variable(tf.zeros([6, 3]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def lookup(self, ids):
        return tf.nn.embedding_lookup(self.table, ids)


with strategy.scope():
    model = Embedding()
print(type(model.table).__name__, "shards on",
      [v.device.split("/device")[0] for v in model.table.variables])

iterator = iter(coordinator.create_per_worker_dataset(
    lambda: tf.data.Dataset.from_tensor_slices(tf.ones([64, 3])).batch(4).repeat()))
row_number = tf.range(6, dtype=tf.float32)[:, None]


@tf.function
def step(it):
    def replica_fn(batch):  # row r grows by r per step
        model.table.assign_add(row_number * tf.reduce_mean(batch, 0))
    strategy.run(replica_fn, args=(next(it),))


for _ in range(100):
    coordinator.schedule(step, args=(iterator,))
coordinator.join()
trained = tf.convert_to_tensor(model.table).numpy()

tf.saved_model.save(model, os.path.abspath("savedmodel"))
loaded = tf.saved_model.load(os.path.abspath("savedmodel"))  # as a serving host would
print("loaded:", type(loaded.table).__name__, loaded.table.shape.as_list())
np.testing.assert_array_equal(loaded.table.numpy(), trained)
np.testing.assert_array_equal(loaded.lookup(tf.constant([5])).numpy(), trained[5:])
# --8<-- [end:example]
