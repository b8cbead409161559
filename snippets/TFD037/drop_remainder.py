# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name
HIDDEN = 8


@tf.function
def step(batch):
    def replica_fn(d):
        frames = tf.reduce_sum(d, axis=1)
        longest = tf.reduce_max(frames)
        padded = tf.ones(tf.stack([tf.shape(d)[0], longest, HIDDEN]))
        return tf.shape(d)[0], tf.reduce_sum(frames), tf.reduce_sum(padded) / HIDDEN

    return run(replica_fn, args=(batch,))


def epoch(durations, global_batch):
    dataset = tf.data.Dataset.from_tensor_slices(durations).batch(global_batch, drop_remainder=True)
    start, shares = 0, []
    for batch in strategy.experimental_distribute_dataset(dataset):
        counts, real, padded = ([int(v) for v in strategy.experimental_local_results(t)] for t in step(batch))
        assert counts == [global_batch // 4] * 4, counts  # every replica ran, none of them empty
        for n, r, p in zip(counts, real, padded):  # each replica's share: the next n utterances
            frames = durations[start:start + n].sum(axis=1)
            assert r == frames.sum() and p == n * frames.max(), (n, r, p)
            start += n
        shares.append(counts)
    return shares, len(durations) - start  # the steps, and how many utterances were left out


durations = (np.arange(33, dtype="int32") % 4 + 1).reshape(11, 3)  # 11 utterances, batches of 4
print("batch 4, 11 utterances: %s, %d left out" % epoch(durations, 4))
fewer = durations[:10]  # another length and batch size, two epochs
for number in (1, 2):
    print("batch 8, 10 utterances, epoch %d: %s, %d left out" % ((number,) + epoch(fewer, 8)))
# --8<-- [end:example]
