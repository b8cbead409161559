# /// tfdist
# [expect]
# default = { prints = "examples per replica: \\[1, 0, 0, 0\\]; mean of the replicas' means: nan; mean over the batch: 64\\.0" }
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
examples = np.arange(9, dtype="float32")  # 9 examples in global batches of 8: the last one holds 1
dataset = tf.data.Dataset.from_tensor_slices(examples).batch(8)


@tf.function
def step(batch):
    def replica_fn(x):
        return tf.shape(x)[0], tf.reduce_mean(tf.square(x))  # this replica's share and its mean loss

    return run(replica_fn, args=(batch,))


start = 0
for batch in strategy.experimental_distribute_dataset(dataset):
    sizes, means = step(batch)
    sizes = [int(n) for n in strategy.experimental_local_results(sizes)]
    mean = float(strategy.reduce(tf.distribute.ReduceOp.MEAN, means, axis=None))
    true = float(np.mean(np.square(examples[start:start + sum(sizes)])))
    start += sum(sizes)
    assert len(sizes) == 4  # every replica took part, with its share of the global batch
    print("examples per replica: %s; mean of the replicas' means: %.1f; mean over the batch: %.1f"
          % (sizes, mean, true))
# --8<-- [end:example]
