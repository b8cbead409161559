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
N, GLOBAL_BATCH = 24, 8
folder = tempfile.mkdtemp()  # each worker writes its own copy of the same files
files = []
for i in range(2):  # still only two files for four workers
    name = f"{folder}/part-{i}.tfrecord"
    with tf.io.TFRecordWriter(name) as writer:
        for n in range(i * 12, i * 12 + 12):
            writer.write(tf.io.serialize_tensor(tf.constant(n)).numpy())
    files.append(name)


def dataset_fn(input_context):
    # Each worker reads every file and keeps every 4th example: sharding by data.
    per_replica = input_context.get_per_replica_batch_size(GLOBAL_BATCH)  # 8 / 4 = 2
    ds = tf.data.TFRecordDataset(files).map(lambda r: tf.io.parse_tensor(r, tf.int32))
    ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return ds.batch(per_replica)


dist = strategy.distribute_datasets_from_function(dataset_fn)


@tf.function
def step(ids):
    ctx = tf.distribute.get_replica_context()
    seen = tf.reduce_sum(tf.one_hot(ids, N), axis=0)  # which examples this replica got
    replica = tf.one_hot(ctx.replica_id_in_sync_group, 4)
    return ctx.all_reduce("sum", seen), ctx.all_reduce("sum", replica)


for epoch in range(2):  # a second pass over the same distributed dataset
    seen, replicas = tf.zeros([N]), tf.zeros([4])
    for batch in dist:
        s, r = strategy.run(step, args=(batch,))
        seen += strategy.experimental_local_results(s)[0]
        replicas += strategy.experimental_local_results(r)[0]
    print("epoch", epoch, "times each example was seen:", sorted(set(seen.numpy().tolist())))
    assert seen.numpy().tolist() == [1.0] * N  # every example once, across the 4 workers
    assert replicas.numpy().tolist() == [3.0] * 4  # all 4 replicas ran each of the 3 steps
# --8<-- [end:example]
