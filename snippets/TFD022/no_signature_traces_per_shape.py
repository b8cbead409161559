# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
features = np.arange(18 * 3, dtype="float32").reshape(18, 3)
dataset = tf.data.Dataset.from_tensor_slices(features).batch(8)  # batches of 8, 8 and 2
dist_dataset = strategy.experimental_distribute_dataset(dataset)

traces = []


# The same step as with element_spec, but with no input_signature at all.
@tf.function
def distributed_step(batch):
    traces.append(1)  # Python code: runs only while tracing
    per_replica = strategy.run(tf.reduce_sum, args=(batch,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for epoch in range(2):
    total = sum(float(distributed_step(batch)) for batch in dist_dataset)
    assert total == float(features.sum()), total

print("traced", len(traces), "time(s) for batches of 8 and 2, over 2 epochs")
# --8<-- [end:example]
