# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "DataType string not in list of allowed values" }
# "tf2.4" = "passes"
# "tf2.5" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run or Strategy.gather, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
names = tf.constant(["cat", "dog", "bird", "cat", "fish", "dog", "cat", "bird"])
dataset = tf.data.Dataset.from_tensor_slices(names).batch(8)  # raw strings, 2 per replica


@tf.function
def step(batch):
    def replica_fn(x):  # the strings reach the replicas, and come back from them
        return tf.strings.upper(x)

    return strategy.run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    upper = strategy.gather(step(batch), axis=0)  # collect every replica's strings
    print("upper-cased:", upper.numpy().tolist())
# --8<-- [end:example]
