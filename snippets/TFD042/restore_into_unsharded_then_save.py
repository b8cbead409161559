# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 2 }
# [expect]
# default = "passes"
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

partitioners = tf.distribute.experimental.partitioners
strategy = tf.distribute.experimental.ParameterServerStrategy(
    resolver, variable_partitioner=partitioners.FixedShardsPartitioner(2))
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)


class Embedding(tf.Module):
    def __init__(self, rows):
        super().__init__()
        self.table = tf.Variable(tf.zeros([rows, 3]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def lookup(self, ids):
        return tf.nn.embedding_lookup(self.table, ids)


def train(model, steps):
    iterator = iter(coordinator.create_per_worker_dataset(
        lambda: tf.data.Dataset.from_tensor_slices(tf.ones([64, 3])).batch(4).repeat()))
    row_number = tf.range(model.table.shape[0], dtype=tf.float32)[:, None]

    @tf.function
    def step(it):
        def replica_fn(batch):  # row r grows by r per step: the order of the rows shows
            model.table.assign_add(row_number * tf.reduce_mean(batch, 0))
        strategy.run(replica_fn, args=(next(it),))

    for _ in range(steps):
        coordinator.schedule(step, args=(iterator,))
    coordinator.join()


def export(model, folder):
    # 1. a checkpoint of the sharded model: each shard is written as a slice of the full variable
    prefix = tf.train.Checkpoint(model=model).write(os.path.join(folder, "ckpt"))
    # 2. the same model built outside the strategy: one plain variable per table, no shards
    plain = Embedding(model.table.shape[0])
    tf.train.Checkpoint(model=plain).read(prefix).assert_consumed()
    # 3. the SavedModel of the plain copy loads anywhere
    tf.saved_model.save(plain, os.path.join(folder, "savedmodel"))
    return tf.saved_model.load(os.path.join(folder, "savedmodel"))


with strategy.scope():
    model = Embedding(6)
print(type(model.table).__name__, "shards on",
      [v.device.split("/device")[0] for v in model.table.variables])
assert [v.device.split("/device")[0] for v in model.table.variables] == [
    "/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1"]

for stage in (1, 2):  # a second stage: more training, then export again
    train(model, 100)
    trained = tf.convert_to_tensor(model.table).numpy()
    loaded = export(model, os.path.abspath("export%d" % stage))
    print("stage", stage, "loaded:", type(loaded.table).__name__, loaded.table.shape.as_list(),
          "rows", loaded.lookup(tf.range(6)).numpy()[:, 0].tolist())
    assert (trained[:, 0] == [stage * 100 * r for r in range(6)]).all()  # 100 steps a stage
    np.testing.assert_array_equal(loaded.table.numpy(), trained)
# --8<-- [end:example]
