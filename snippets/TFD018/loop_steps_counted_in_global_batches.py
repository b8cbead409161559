# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here)" }
# ///
# --8<-- [start:example]
import math

import numpy as np
import tensorflow as tf

PER_REPLICA_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
global_batch = PER_REPLICA_BATCH * strategy.num_replicas_in_sync  # 16: what one step takes


def data(n):  # n examples in global batches; the last one is smaller when n is no multiple of 16
    return tf.data.Dataset.from_tensor_slices(np.linspace(0, 1, 3 * n, dtype="float32").reshape(n, 3)).batch(global_batch)


def replica_fn(batch):  # this replica's id and the examples it got
    return tf.distribute.get_replica_context().replica_id_in_sync_group, tf.shape(batch)[0]


@tf.function
def train_step(batch):
    return strategy.run(replica_fn, args=(batch,))


def per_replica(values):
    return [int(v) for v in strategy.experimental_local_results(values)]


# One iterator over the repeated data, and steps counted in global batches: 64 examples, 4 steps an epoch
iterator = iter(strategy.experimental_distribute_dataset(data(64).repeat()))
steps_per_epoch = math.ceil(64 / global_batch)
for epoch in range(3):
    seen = [0, 0, 0, 0]
    for step in range(steps_per_epoch):
        ids, examples = train_step(iterator.get_next())
        assert per_replica(ids) == [0, 1, 2, 3]
        seen = [s + n for s, n in zip(seen, per_replica(examples))]
    print("epoch", epoch, "steps:", steps_per_epoch, "examples per replica:", seen)
    assert seen == [16, 16, 16, 16]

# The variation: 70 examples (the last global batch holds 6), and a loop over the distributed
# dataset itself, which ends where the data ends: no step count to get wrong
for epoch in range(2):
    steps, seen = 0, [0, 0, 0, 0]
    for batch in strategy.experimental_distribute_dataset(data(70)):
        ids, examples = train_step(batch)
        assert per_replica(ids) == [0, 1, 2, 3]
        steps, seen = steps + 1, [s + n for s, n in zip(seen, per_replica(examples))]
    print("70 examples, epoch", epoch, "steps:", steps, "examples per replica:", seen)
    assert steps == math.ceil(70 / global_batch) and sum(seen) == 70
# --8<-- [end:example]
