# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "Binding inputs to tf\\.function failed due to `'PerReplica' object has no attribute 'dtype'`" }
# "tf2.5" = { raises = "TypeError", match = "train_step\\(\\) argument after \\*\\* must be a mapping, not Tensor" }
# "tf2.4" = { raises = "TypeError", match = "train_step\\(\\) argument after \\*\\* must be a mapping, not Tensor" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
inputs = tf.reshape(tf.range(16 * 5, dtype=tf.int64), (16, 5))
targets = tf.reshape(tf.range(16 * 6, dtype=tf.int64), (16, 6))
dataset = tf.data.Dataset.from_tensor_slices((inputs, targets)).batch(8)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

# As in the Transformer tutorial: the step function has an input_signature ...
train_step_signature = [
    tf.TensorSpec(shape=(None, None), dtype=tf.int64),
    tf.TensorSpec(shape=(None, None), dtype=tf.int64),
]


@tf.function(input_signature=train_step_signature)
def train_step(inp, tar):
    tar_real = tar[:, 1:]
    return tf.reduce_sum(inp) + tf.reduce_sum(tar_real)


# ... and, as in the custom-training tutorial, it is the function given to strategy.run.
for inp, tar in dist_dataset:
    per_replica = strategy.run(train_step, args=(inp, tar))
    print("sum of the batch:", int(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)))
# --8<-- [end:example]
