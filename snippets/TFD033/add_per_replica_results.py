# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "unsupported operand type\\(s\\) for \\+: 'PerReplica' and 'PerReplica'" }
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
with strategy.scope():
    weights = tf.Variable([[1.0, 2.0], [3.0, 4.0]])  # a tiny embedding layer, mirrored
images = np.arange(16, dtype="float32").reshape(8, 2)  # 8 "images" of 2 pixels
dataset = tf.data.Dataset.from_tensor_slices(images).batch(8)


@tf.function
def embed(batch, flip):
    def replica_fn(x):
        if flip:
            x = x[:, ::-1]  # the mirror image
        return tf.matmul(x, weights)

    return run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    # an evaluation that adds the embedding of each image and of its mirror image
    embeddings = embed(batch, False) + embed(batch, True)
    print("embeddings:", embeddings.shape)
# --8<-- [end:example]
