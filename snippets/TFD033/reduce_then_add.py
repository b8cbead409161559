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
with strategy.scope():
    weights = tf.Variable([[1.0, 2.0], [3.0, 4.0]])  # a tiny embedding layer, mirrored
assert len(strategy.experimental_local_results(weights)) == 4  # one copy per replica


@tf.function
def embed(batch):
    def replica_fn(x):
        embeddings = tf.matmul(x, weights) + tf.matmul(x[:, ::-1], weights)  # add on the replica
        return embeddings, tf.reduce_sum(tf.square(embeddings))  # and this replica's share of a loss

    return run(replica_fn, args=(batch,))


def evaluate(images, global_batch):
    dataset = tf.data.Dataset.from_tensor_slices(images).batch(global_batch)
    parts, total = [], 0.0
    for step, batch in enumerate(strategy.experimental_distribute_dataset(dataset)):
        embeddings, loss = embed(batch)  # two PerReplica values
        local = strategy.experimental_local_results(embeddings)  # 4 tensors, in replica order
        parts.append(tf.concat(local, axis=0))  # this step's embeddings, in the dataset's order
        step_loss = strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)  # one tensor
        total += float(step_loss)  # a tensor adds and formats like a number
        print(f"step {step}: examples per replica {[int(t.shape[0]) for t in local]}, loss {float(step_loss):.1f}")
    embeddings = np.concatenate([p.numpy() for p in parts])
    expected = images @ weights.numpy() + images[:, ::-1] @ weights.numpy()  # on one device
    assert np.array_equal(embeddings, expected) and total == float(np.sum(np.square(expected)))
    return total


images = np.arange(22, dtype="float32").reshape(11, 2)  # 11 "images" of 2 pixels
print("total loss:", evaluate(images[:8], 8))  # one step, 2 images per replica
print("total loss:", evaluate(images, 4))  # another batch size, and a last batch of 3: one replica gets none
# --8<-- [end:example]
