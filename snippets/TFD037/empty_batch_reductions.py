# /// tfdist
# [expect]
# default = { prints = "examples: +\\[1, 1, 1, 0\\]\\n +longest \\(int32\\): +\\[6, 7, 8, -2147483648\\]\\n +longest \\(float32\\): +\\[6\\.0, 7\\.0, 8\\.0, -inf\\]\\n +mean: +\\[6\\.0, 7\\.0, 8\\.0, nan\\]\\n[\\s\\S]*examples: +\\[2, 2, 2, 0\\][\\s\\S]*-2147483648\\][\\s\\S]*-inf\\][\\s\\S]*nan\\]" }
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


@tf.function
def step(batch):
    def replica_fn(d):
        frames = tf.reduce_sum(d, axis=1)  # frames of each utterance on this replica
        as_float = tf.cast(frames, tf.float32)
        return tf.shape(d)[0], tf.reduce_max(frames), tf.reduce_max(as_float), tf.reduce_mean(as_float)

    return run(replica_fn, args=(batch,))


durations = (np.arange(42, dtype="int32") % 4 + 1).reshape(14, 3)  # 14 utterances of 3 phonemes
for count, global_batch in ((11, 4), (14, 8)):  # last batches of 3 and of 6 utterances
    dataset = tf.data.Dataset.from_tensor_slices(durations[:count]).batch(global_batch)
    for last in strategy.experimental_distribute_dataset(dataset):
        pass  # keep only the last step
    values = ([v.numpy().tolist() for v in strategy.experimental_local_results(t)] for t in step(last))
    print("%d utterances in batches of %d, last step:" % (count, global_batch))
    for name, value in zip(("examples", "longest (int32)", "longest (float32)", "mean"), values):
        print("  %-18s %s" % (name + ":", value))
# --8<-- [end:example]
