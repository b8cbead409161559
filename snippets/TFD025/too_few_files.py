# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "shard" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy, Strategy.run or distribute_datasets_from_function" }
# ///
# --8<-- [start:example]
import tempfile

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()

# The training data lives in two files, and there are four workers.
folder = tempfile.mkdtemp()  # each worker writes its own copy of the same files
files = []
for i in range(2):
    name = f"{folder}/part-{i}.tfrecord"
    with tf.io.TFRecordWriter(name) as writer:
        for n in range(i * 12, i * 12 + 12):
            writer.write(tf.io.serialize_tensor(tf.constant(n)).numpy())
    files.append(name)

dataset = tf.data.TFRecordDataset(files).map(
    lambda r: tf.io.parse_tensor(r, tf.int32)).batch(8)  # global batch 8
dist = strategy.experimental_distribute_dataset(dataset)  # default AUTO -> FILE


@tf.function
def step(ids):
    ctx = tf.distribute.get_replica_context()
    return ctx.all_reduce("sum", tf.reduce_sum(ids))


for batch in dist:
    strategy.run(step, args=(batch,))
# --8<-- [end:example]
