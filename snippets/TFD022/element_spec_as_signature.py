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
# 18 examples in global batches of 8: 8, 8 and a last batch of 2, of which some replicas get no example
dataset = tf.data.Dataset.from_tensor_slices(features).batch(8)
dist_dataset = strategy.experimental_distribute_dataset(dataset)
print("signature:", dist_dataset.element_spec.__class__.__name__)

traces = []


def replica_step(x):
    replica = tf.distribute.get_replica_context().replica_id_in_sync_group
    return tf.reduce_sum(x), tf.shape(x)[0], replica


# The signature is the distributed dataset's own: a PerReplica spec, not a TensorSpec.
@tf.function(input_signature=[dist_dataset.element_spec])
def distributed_step(batch):
    traces.append(1)  # Python code: runs only while tracing
    total, count, replica = strategy.run(replica_step, args=(batch,))
    return (strategy.reduce(tf.distribute.ReduceOp.SUM, total, axis=None),
            strategy.reduce(tf.distribute.ReduceOp.SUM, count, axis=None),
            strategy.experimental_local_results(replica))


for epoch in range(2):  # a second epoch: the same traced function again
    total, count, seen = 0.0, 0, set()
    for batch in dist_dataset:
        batch_total, batch_count, replicas = distributed_step(batch)
        total += float(batch_total)
        count += int(batch_count)
        seen.update(int(r) for r in replicas)
    print(f"epoch {epoch + 1}: {count} examples, sum {total}, replicas {sorted(seen)}")
    assert count == 18 and total == float(features.sum()), (count, total)
    assert sorted(seen) == [0, 1, 2, 3], seen

print("traced", len(traces), "time(s) for batches of 8 and 2, over 2 epochs")
assert len(traces) == 1, len(traces)
# --8<-- [end:example]
