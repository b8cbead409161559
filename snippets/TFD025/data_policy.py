# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy, Strategy.run or distribute_datasets_from_function" }
# ///
# --8<-- [start:example]
import tempfile

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
N, GLOBAL_BATCH = 32, 8
folder = tempfile.mkdtemp()  # each worker writes its own copy of the same files
files = []
for i in range(2):  # two files, four workers
    name = f"{folder}/part-{i}.tfrecord"
    with tf.io.TFRecordWriter(name) as writer:
        for n in range(i * 16, i * 16 + 16):
            writer.write(tf.io.serialize_tensor(tf.constant(n)).numpy())
    files.append(name)

dataset = tf.data.TFRecordDataset(files).map(
    lambda r: tf.io.parse_tensor(r, tf.int32)).batch(GLOBAL_BATCH)
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
dist = strategy.experimental_distribute_dataset(dataset.with_options(options))


@tf.function
def step(ids):
    ctx = tf.distribute.get_replica_context()
    seen = tf.reduce_sum(tf.one_hot(ids, N), axis=0)
    replica = tf.one_hot(ctx.replica_id_in_sync_group, 4)
    return ctx.all_reduce("sum", seen), ctx.all_reduce("sum", replica)


for epoch in range(2):
    seen, replicas, steps = tf.zeros([N]), tf.zeros([4]), 0
    for batch in dist:
        s, r = strategy.run(step, args=(batch,))
        seen += strategy.experimental_local_results(s)[0]
        replicas += strategy.experimental_local_results(r)[0]
        steps += 1
    print("epoch", epoch, "steps:", steps, "times each example was seen:", sorted(set(seen.numpy().tolist())))
    assert seen.numpy().tolist() == [1.0] * N  # every example once, across the 4 workers
    assert replicas.numpy().tolist() == [float(steps)] * 4  # all 4 replicas ran every step
# --8<-- [end:example]
