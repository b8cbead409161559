# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "Binding inputs to tf\\.function failed due to `'PerReplica' object has no attribute 'dtype'`" }
# "tf2.5" = { raises = "ValueError", match = "When input_signature is provided, all inputs to the Python function must be convertible to tensors" }
# "tf2.4" = { raises = "ValueError", match = "When input_signature is provided, all inputs to the Python function must be convertible to tensors" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
features = tf.reshape(tf.range(16 * 3, dtype=tf.float32), (16, 3))
dataset = tf.data.Dataset.from_tensor_slices(features).batch(8)  # global batches of 8: 2 examples per replica
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def replica_step(x):
    return tf.reduce_sum(x)


# The signature describes one plain tensor, but the loop passes the distributed batch.
@tf.function(input_signature=[tf.TensorSpec(shape=(None, 3), dtype=tf.float32)])
def distributed_step(batch):
    per_replica = strategy.run(replica_step, args=(batch,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for batch in dist_dataset:
    print("sum of the batch:", float(distributed_step(batch)))
# --8<-- [end:example]
