# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did (TFD016), and the gradients here have other shapes than the cells above"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

VOCAB, DIM = 1000, 4
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    table = tf.Variable(tf.random.stateless_normal([VOCAB, DIM], seed=[1, 2]))


def loss_of(rows):
    return tf.reduce_sum(tf.square(rows))


@tf.function
def step(ids):
    ctx = tf.distribute.get_replica_context()
    with tf.GradientTape() as tape:
        loss = loss_of(tf.gather(table, ids))  # an embedding lookup
    grad = tape.gradient(loss, table)
    summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grad)
    rows = tf.shape(summed.values)[0] if isinstance(summed, tf.IndexedSlices) else tf.shape(summed)[0]
    return (tf.constant(type(grad).__name__), tf.constant(type(summed).__name__), rows,
            tf.convert_to_tensor(summed), ctx.replica_id_in_sync_group)


def run(per_replica_ids):
    ids = strategy.experimental_distribute_values_from_function(lambda ctx: per_replica_ids[ctx.replica_id_in_sync_group])
    local_type, reduced_type, rows, dense, replica_ids = [
        strategy.experimental_local_results(t) for t in strategy.run(step, args=(ids,))]
    print("  each replica's gradient:", local_type[0].numpy().decode(), "| after all_reduce:", reduced_type[0].numpy().decode())
    print("  rows in the all-reduced gradient, per replica:", [int(r) for r in rows], "| rows of the table:", VOCAB)
    everything = np.concatenate(per_replica_ids)
    with tf.GradientTape() as tape:  # one device, all the replicas' lookups
        loss = loss_of(tf.gather(table, everything))
    expected = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
    assert sorted(int(r) for r in replica_ids) == [0, 1, 2, 3]
    assert all(np.allclose(d.numpy(), expected) for d in dense), "a replica's summed gradient differs from one device's"
    print("  every replica holds the one-device gradient: True")


print("2 lookups on each replica; row 3 twice on replica 0, row 7 on replicas 0 and 3:")
run([np.array(r, "int32") for r in ([3, 7], [3, 500], [9, 999], [42, 7])])
print("1, 2, 3 and 4 lookups on the replicas:")
run([np.array(r, "int32") for r in ([5], [6, 7], [8, 9, 10], [11, 12, 13, 5])])
# --8<-- [end:example]
