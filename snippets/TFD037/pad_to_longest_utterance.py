# /// tfdist
# fresh-process = "its message quotes the replica thread's Python frames, which a run forked from a pre-imported TensorFlow names differently"
# [expect]
# default = { raises = "InvalidArgumentError", match = "Dimension -2147483648 must be >= 0" }
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
# 11 utterances of 3 phonemes; each phoneme lasts 1 to 4 frames (as in a TTS length regulator)
durations = (np.arange(33, dtype="int32") % 4 + 1).reshape(11, 3)
dataset = tf.data.Dataset.from_tensor_slices(durations).batch(4)  # global batches of 4, 4 and 3


@tf.function
def step(batch):
    def replica_fn(d):
        frames = tf.reduce_sum(d, axis=1)  # frames of each utterance on this replica
        longest = tf.reduce_max(frames)  # pad every utterance to the longest one
        padded = tf.ones(tf.stack([tf.shape(d)[0], longest, HIDDEN]))  # the padded frame features
        return tf.reduce_sum(frames), tf.reduce_sum(padded) / HIDDEN  # real and padded frames

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    real, padded = (strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None) for v in step(batch))
    print("frames in this step: %d real, %d padded" % (real, padded))
# --8<-- [end:example]
