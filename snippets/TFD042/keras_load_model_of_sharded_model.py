# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 2 }
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 layers hold Keras Variables, not ShardedVariables (AttributeError: 'Variable' object has no attribute 'variables'), and its model.save writes .keras files, not the SavedModel of this page" }
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

with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.layers.Embedding(6, 3), tf.keras.layers.Reshape([6]), tf.keras.layers.Dense(1)])
    model(tf.zeros([1, 2], tf.int32))
    optimizer = tf.keras.optimizers.SGD(0.1)
table = model.layers[0].embeddings
shards = sorted(v.device.split("/device")[0] for v in table.variables)
print(type(table).__name__, "shards on", shards)
assert shards == ["/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1"]


def dataset_fn():  # rows of two ids and a target
    return tf.data.Dataset.range(1000).map(
        lambda i: tf.stack([i % 6, (i + 1) % 6, i % 3])).batch(4).repeat()


iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))


@tf.function
def step(it):
    def replica_fn(batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(batch[:, :2])[:, 0] - tf.cast(batch[:, 2], tf.float32)) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    strategy.run(replica_fn, args=(next(it),))


for _ in range(100):
    coordinator.schedule(step, args=(iterator,))
coordinator.join()
trained = tf.convert_to_tensor(table).numpy()

model.save(os.path.abspath("keras_savedmodel"), save_format="tf")
loaded = tf.keras.models.load_model(os.path.abspath("keras_savedmodel"))
print("loaded embeddings:", type(loaded.layers[0].embeddings).__name__,
      loaded.layers[0].embeddings.shape.as_list())
np.testing.assert_array_equal(loaded.layers[0].embeddings.numpy(), trained)
np.testing.assert_allclose(loaded(tf.constant([[0, 5]])).numpy(), model(tf.constant([[0, 5]])).numpy())
# --8<-- [end:example]
