# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy, Strategy.run or distribute_datasets_from_function" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
GLOBAL_BATCH = 8


def dataset_fn(input_context):
    # Each worker still reads its own part, and worker 3's part is still smaller.
    worker = input_context.input_pipeline_id
    size = 4 if worker == 3 else 6
    per_replica = input_context.get_per_replica_batch_size(GLOBAL_BATCH)  # 2
    return tf.data.Dataset.range(worker * 6, worker * 6 + size).map(
        lambda i: tf.cast(i, tf.float32)).batch(per_replica)


dist = strategy.distribute_datasets_from_function(dataset_fn)

with strategy.scope():
    total = tf.Variable(0.0)
    seen = tf.Variable(0.0)


@tf.function
def step(x):
    ctx = tf.distribute.get_replica_context()
    # A worker whose input has ended gets an empty batch: sums, not means.
    total.assign_add(ctx.all_reduce("sum", tf.reduce_sum(x)))
    seen.assign_add(ctx.all_reduce("sum", tf.cast(tf.size(x), tf.float32)))
    return ctx.all_reduce("sum", tf.one_hot(ctx.replica_id_in_sync_group, 4))


for epoch in range(2):  # a second epoch over the same distributed dataset
    steps, replicas = 0, tf.zeros([4])
    for x in dist:  # the workers agree on when the input has ended
        replicas += strategy.experimental_local_results(strategy.run(step, args=(x,)))[0]
        steps += 1
    print("epoch", epoch, "steps:", steps, "examples:", float(seen.numpy()), "total:", float(total.numpy()))
    assert steps == 3  # the same number of steps on every worker
    assert replicas.numpy().tolist() == [3.0] * 4  # all 4 replicas ran every step
    assert float(seen.numpy()) == 22.0 * (epoch + 1)  # 6 + 6 + 6 + 4 examples per epoch
    assert float(total.numpy()) == 231.0 * (epoch + 1)  # 0 + 1 + ... + 21 per epoch

done = strategy.reduce("sum", tf.constant(1.0), axis=None)  # a collective after the loop, as before
print("workers done:", float(done))
assert float(done) == 4.0
# --8<-- [end:example]
