# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

task = json.loads(os.environ["TF_CONFIG"])["task"]
is_chief = task["type"] == "chief" or (task["type"] == "worker" and task["index"] == 0)
SHARED = os.path.join("..", "shared-ckpt")  # every worker sees it (a bucket, NFS)

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable(tf.zeros((3, 1)))
    steps = tf.Variable(0)
ckpt = tf.train.Checkpoint(w=w, steps=steps)
# Every worker saves; the chief into the shared folder, the others into a folder of their own.
folder = os.path.join(SHARED, "ckpt") if is_chief else tempfile.mkdtemp()
manager = tf.train.CheckpointManager(ckpt, folder, max_to_keep=2)


@tf.function
def gradient():
    ctx = tf.distribute.get_replica_context()
    x = tf.ones((2, 3)) * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32)  # its own batch
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) - 1.0) ** 2)
    return ctx.all_reduce("mean", tape.gradient(loss, w))  # the average of the 4 gradients


@tf.function
def count(flag):  # a replica function: the sum of every worker's flag
    return tf.distribute.get_replica_context().all_reduce("sum", tf.constant(flag))


before = None
for stage in range(2):  # train, save, restore into fresh variables; then once more
    for _ in range(3):
        grad = strategy.experimental_local_results(strategy.run(gradient))[0]
        w.assign_sub(0.01 * grad)
        steps.assign_add(1)
    path = manager.save()  # on every worker
    saved = float(tf.io.gfile.exists(path + ".index"))
    workers_saved = strategy.experimental_local_results(strategy.run(count, args=(saved,)))[0]
    assert float(workers_saved) == 4.0, workers_saved
    print("stage", stage, "saved by", int(workers_saved), "workers")
    if not is_chief:
        continue
    fresh = tf.train.Checkpoint(w=tf.Variable(tf.zeros((3, 1))), steps=tf.Variable(0))
    fresh.restore(tf.train.latest_checkpoint(os.path.join(SHARED, "ckpt"))).assert_consumed()
    np.testing.assert_allclose(fresh.w.numpy(), w.numpy())
    assert int(fresh.steps.numpy()) == 3 * (stage + 1)
    assert before is None or not np.allclose(before, w.numpy())  # the newer weights
    before = w.numpy()
    print("stage", stage, "restored from the chief's checkpoint after", int(fresh.steps.numpy()), "steps")

# the same training on one device: the average gradient of the 4 replicas' batches
v = np.zeros((3, 1), np.float32)
for _ in range(6):
    v -= 0.01 * np.mean([2 * np.ones((3, 2)) * k @ (np.ones((2, 3)) * k @ v - 1) / 2 for k in (1, 2, 3, 4)], axis=0)
np.testing.assert_allclose(w.numpy(), v, rtol=1e-5)
if not is_chief:
    tf.io.gfile.rmtree(folder)  # nobody reads this copy
# --8<-- [end:example]
