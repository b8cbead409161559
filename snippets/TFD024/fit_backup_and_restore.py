# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy and no BackupAndRestore callback" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy raises 'Attempt to convert a value (PerReplica...)' before any backup is involved (keras-team/keras#20585); the custom-loop fix covers Keras 3" }
# ///
# --8<-- [start:example]
import json
import os
import subprocess
import sys
import time

task = json.loads(os.environ["TF_CONFIG"])["task"]
SHARED = os.path.abspath(os.path.join("..", "shared-fit"))  # every worker sees it (a bucket, NFS)
EPOCHS = 6

if "ATTEMPT" not in os.environ:
    # The job scheduler's part, as in the custom loop: attempt 1 in a child process, then the
    # whole job again once every worker's attempt 1 has ended.
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
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
# y = 1 for x = 1: one full batch per epoch, so after n epochs the weight is 1 - 0.8 ** n
data = tf.data.Dataset.from_tensor_slices((tf.ones((8, 1)), tf.ones((8, 1)))).batch(8)
ran = []


class Events(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, e, logs=None):
        if attempt == 1 and task["index"] == 3 and e == 3:
            os._exit(1)  # worker 3 dies in epoch 3 of attempt 1
        ran.append(e)


# tf.keras.callbacks.experimental.BackupAndRestore in the releases before it left experimental
BackupAndRestore = getattr(tf.keras.callbacks, "BackupAndRestore", None) or tf.keras.callbacks.experimental.BackupAndRestore
backup = BackupAndRestore(backup_dir=os.path.join(SHARED, "backup"))
model.fit(data, epochs=EPOCHS, callbacks=[backup, Events()], verbose=0)

kernel = float(model.layers[0].kernel.numpy()[0, 0])
print("attempt", attempt, "ran epochs", ran, "kernel = %.5f" % kernel)
if attempt == 2:
    assert ran == [3, 4, 5], ran  # resumed after the 3 backed-up epochs, not from 0
    assert abs(kernel - (1 - 0.8 ** EPOCHS)) < 1e-5, kernel  # as an uninterrupted run
# --8<-- [end:example]
