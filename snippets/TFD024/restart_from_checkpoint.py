# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os
import subprocess
import sys
import tempfile
import time

task = json.loads(os.environ["TF_CONFIG"])["task"]
SHARED = os.path.abspath(os.path.join("..", "shared-loop"))  # every worker sees it (a bucket, NFS)
EPOCHS = 6

if "ATTEMPT" not in os.environ:
    # The job scheduler's part: run attempt 1 in a child process. When it has failed, say so
    # and wait until every worker's attempt 1 has ended: the whole job restarts, not one task.
    os.makedirs(SHARED, exist_ok=True)
    first = subprocess.run([sys.executable, __file__], env=dict(os.environ, ATTEMPT="1"))
    print("attempt 1 ended with an error")  # its exit code depends on how the abort reached it
    assert first.returncode != 0
    open(os.path.join(SHARED, "ended-%d" % task["index"]), "w").close()
    while len([f for f in os.listdir(SHARED) if f.startswith("ended-")]) < 4:
        time.sleep(0.2)
    os.environ["ATTEMPT"] = "2"

import tensorflow as tf

attempt = int(os.environ["ATTEMPT"])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable(0.0)
    epoch = tf.Variable(0)
ckpt = tf.train.Checkpoint(w=w, epoch=epoch)
# Every worker saves (saving may run collectives); only the chief's copy is kept.
folder = os.path.join(SHARED, "ckpt") if task["index"] == 0 else tempfile.mkdtemp()
manager = tf.train.CheckpointManager(ckpt, folder, max_to_keep=2)
latest = tf.train.latest_checkpoint(os.path.join(SHARED, "ckpt"))
if latest:
    ckpt.restore(latest)
start = int(epoch.numpy())
print("attempt", attempt, "starts at epoch", start)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    seen = ctx.all_reduce("sum", tf.one_hot(ctx.replica_id_in_sync_group, 4))
    w.assign_add(tf.reduce_sum(seen))  # +4 per epoch when all 4 replicas ran
    return seen


for e in range(start, EPOCHS):
    if attempt == 1 and task["index"] == 3 and e == 3:
        os._exit(1)  # worker 3 dies in epoch 3 of attempt 1
    seen = strategy.experimental_local_results(strategy.run(step))[0]
    assert seen.numpy().tolist() == [1.0, 1.0, 1.0, 1.0], seen
    epoch.assign(e + 1)
    manager.save()

print("attempt", attempt, "w =", float(w.numpy()))
if attempt == 2:
    assert start == 3, start  # resumed after the 3 saved epochs, not from 0
    assert float(w.numpy()) == 4.0 * EPOCHS  # same weights as an uninterrupted run
# --8<-- [end:example]
