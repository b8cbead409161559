# /// tfdist
# [expect]
# default = "passes"
# "tf2.4" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'rank'" }
# "tf2.5" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'rank'" }
# "tf1.15" = { not-applicable = "TF 1.15's tf.data has no NoneTensorSpec: Dataset.map refuses a None in an element, with or without a strategy" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = tf.reshape(tf.range(192, dtype=tf.float32) % 7 / 7.0, [64, 3])
y = tf.reduce_sum(x, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda f, l: (f, l, None)).batch(8)


@tf.function
def step(batch):
    def replica_fn(f, l, w):  # w arrives as None on every replica
        return tf.shape(f)[0] + (0 if w is None else 1000)
    return strategy.run(replica_fn, args=batch)


# Without Keras: distribute the dataset and run a step on each of its batches
sizes = [[int(n) for n in strategy.experimental_local_results(step(batch))]
         for batch in strategy.experimental_distribute_dataset(dataset)]
print("examples per replica, first step:", sizes[0], "| steps:", len(sizes))
assert sizes == [[2, 2, 2, 2]] * 8  # 8 batches of 8, 2 examples on each of the 4 replicas, no weights
# --8<-- [end:example]
