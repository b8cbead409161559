# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run or Strategy.gather, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
vocabulary = ["cat", "dog", "bird", "fish"]
names = ["cat", "dog", "bird", "cat", "fish", "dog", "cat", "bird", "fish"]
weights = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]


def serialize(name, weight):  # the records as they come from a TFRecord file
    feature = {"name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[name.encode()])),
               "weight": tf.train.Feature(float_list=tf.train.FloatList(value=[weight]))}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


records = [serialize(n, w) for n, w in zip(names, weights)]
table = tf.lookup.StaticHashTable(  # string -> id, used on the host by the input pipeline
    tf.lookup.KeyValueTensorInitializer(vocabulary, tf.range(len(vocabulary), dtype=tf.int64)), -1)
spec = {"name": tf.io.FixedLenFeature([], tf.string), "weight": tf.io.FixedLenFeature([], tf.float32)}


def to_numbers(record):  # parse and look up in tf.data: only numbers leave the pipeline
    example = tf.io.parse_single_example(record, spec)
    return table.lookup(example["name"]), example["weight"]


@tf.function
def step(ids, w):
    def replica_fn(ids, w):
        ctx = tf.distribute.get_replica_context()
        totals = tf.math.unsorted_segment_sum(w, ids, num_segments=len(vocabulary))  # weight per name
        return ctx.replica_id_in_sync_group, ids, ctx.all_reduce(tf.distribute.ReduceOp.SUM, totals)

    return strategy.run(replica_fn, args=(ids, w))


for global_batch in (8, 4):  # a second epoch with another batch size: 9 examples leave a partial batch
    dataset = tf.data.Dataset.from_tensor_slices(records).map(to_numbers).batch(global_batch)
    start = 0
    for ids, w in strategy.experimental_distribute_dataset(dataset):
        for part in strategy.experimental_local_results(ids) + strategy.experimental_local_results(w):
            assert part.dtype != tf.string  # no string tensor reaches a replica
        replica_ids, ids_out, totals = step(ids, w)
        assert [int(r) for r in strategy.experimental_local_results(replica_ids)] == [0, 1, 2, 3]
        gathered = strategy.gather(ids_out, axis=0).numpy()  # numbers: every cross-device op takes them
        end = start + len(gathered)
        assert [vocabulary[i] for i in gathered] == names[start:end]  # back to names on the host
        expected = np.zeros(len(vocabulary), "float32")
        for n, x in zip(names[start:end], weights[start:end]):
            expected[vocabulary.index(n)] += x
        for t in strategy.experimental_local_results(totals):  # the same sum on every replica
            np.testing.assert_allclose(t.numpy(), expected)
        start = end
    assert start == len(names)
    print("global batch %d: %d examples, all 4 replicas got numbers only" % (global_batch, start))
# --8<-- [end:example]
