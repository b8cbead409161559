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
examples = np.arange(10, dtype="float32")


@tf.function
def step(batch):
    def replica_fn(x):
        return tf.shape(x)[0], tf.square(x)  # a tensor on every replica: its count, its per-example losses

    return run(replica_fn, args=(batch,))


def epoch(examples, global_batch):
    start, shares = 0, []
    dataset = tf.data.Dataset.from_tensor_slices(examples).batch(global_batch)
    for batch in strategy.experimental_distribute_dataset(dataset):
        sizes, losses = step(batch)
        shares.append([int(n) for n in strategy.experimental_local_results(sizes)])
        count = int(strategy.reduce(tf.distribute.ReduceOp.SUM, sizes, axis=None))  # across the replicas
        total = float(strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=0))  # and over each batch
        true = float(np.mean(np.square(examples[start:start + count])))
        start += count
        print("examples per replica: %s; global batch: %d; mean loss: %.1f (expected %.1f)"
              % (shares[-1], count, total / count, true))
        assert total / count == true and len(shares[-1]) == 4
    assert start == len(examples)
    return shares


shares = epoch(examples[:9], 8)  # 9 examples in global batches of 8: the last one holds 1
assert shares == [[2, 2, 2, 2], [1, 0, 0, 0]]
shares = epoch(examples, 4)  # another batch size: 10 examples in batches of 4, the last one holds 2
assert [sum(s) for s in shares] == [4, 4, 2]
# --8<-- [end:example]
