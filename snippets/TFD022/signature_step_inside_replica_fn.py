# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
inputs = np.arange(18 * 5, dtype="int64").reshape(18, 5)
targets = np.arange(18 * 6, dtype="int64").reshape(18, 6)
# 18 examples in global batches of 8: 8, 8 and a last batch of 2, of which some replicas get no example
dataset = tf.data.Dataset.from_tensor_slices((inputs, targets)).batch(8)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

train_step_signature = [
    tf.TensorSpec(shape=(None, None), dtype=tf.int64),
    tf.TensorSpec(shape=(None, None), dtype=tf.int64),
]


@tf.function(input_signature=train_step_signature)
def train_step(inp, tar):  # unchanged: one replica's tensors, described by the signature
    tar_real = tar[:, 1:]
    return tf.reduce_sum(inp) + tf.reduce_sum(tar_real)


def replica_fn(inp, tar):  # a plain function for strategy.run; it calls train_step with tensors
    replica = tf.distribute.get_replica_context().replica_id_in_sync_group
    return train_step(inp, tar), tf.shape(inp)[0], replica


@tf.function
def distributed_step(inp, tar):
    total, count, replica = strategy.run(replica_fn, args=(inp, tar))
    return (strategy.reduce(tf.distribute.ReduceOp.SUM, total, axis=None),
            strategy.reduce(tf.distribute.ReduceOp.SUM, count, axis=None),
            strategy.experimental_local_results(replica))


expected = int(inputs.sum() + targets[:, 1:].sum())
for epoch in range(2):  # a second epoch: the traced functions again
    total, count, seen = 0, 0, set()
    for inp, tar in dist_dataset:
        batch_total, batch_count, replicas = distributed_step(inp, tar)
        total += int(batch_total)
        count += int(batch_count)
        seen.update(int(r) for r in replicas)
    print(f"epoch {epoch + 1}: {count} examples, sum {total} (expected {expected}), replicas {sorted(seen)}")
    assert count == 18 and total == expected, (count, total)
    assert sorted(seen) == [0, 1, 2, 3], seen
# --8<-- [end:example]
