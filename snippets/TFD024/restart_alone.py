# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "FailedPreconditionError", match = "current incarnation doesn't match with one in the group" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# "tf2.15" = { not-applicable = "the coordination service of this release keeps the restarted worker 3 waiting inside the strategy's constructor, so the run has no strategy of it to witness; workers 0-2 fail meanwhile with AbortedError '... unexpectedly tried to connect with a different incarnation. It has likely restarted.'" }
# "tf2.21-keras3" = { not-applicable = "the coordination service of this release keeps the restarted worker 3 waiting inside the strategy's constructor, so the run has no strategy of it to witness; workers 0-2 fail meanwhile with AbortedError '... unexpectedly tried to connect with a different incarnation. It has likely restarted.'" }
# "tf2.21-tfkeras" = { not-applicable = "the coordination service of this release keeps the restarted worker 3 waiting inside the strategy's constructor, so the run has no strategy of it to witness; workers 0-2 fail meanwhile with AbortedError '... unexpectedly tried to connect with a different incarnation. It has likely restarted.'" }
# ///
# --8<-- [start:example]
import json
import os
import subprocess
import sys
import time

task = json.loads(os.environ["TF_CONFIG"])["task"]
if task["index"] == 3 and "ATTEMPT" not in os.environ:
    # The scheduler restarts only the task that died; workers 0-2 keep running.
    first = subprocess.run([sys.executable, __file__], env=dict(os.environ, ATTEMPT="1"))
    print("worker 3 ended with an error and is started again")
    os.environ["ATTEMPT"] = "2"
attempt = int(os.environ.get("ATTEMPT", "1"))

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable(0.0)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    w.assign_add(ctx.all_reduce("sum", tf.constant(1.0)))


for n in range(6):
    if n == 3:
        if attempt == 1 and task["index"] == 3:
            os._exit(1)  # worker 3 dies between two steps
        time.sleep(20)  # workers 0-2 are busy outside any collective (evaluating, logging)
    strategy.run(step)
    print("step", n, "w =", float(w.numpy()))
# --8<-- [end:example]
