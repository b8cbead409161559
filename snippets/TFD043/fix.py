# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# "tf2.4" = { not-applicable = "TF 2.4: its coordinator raises nothing when a parameter server is lost (the failing example waits until stopped), so this program has no error to catch there" }
# ///
# --8<-- [start:example]
import os
import time

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
LOST = os.path.join("..", "ps-lost")  # a folder every task of this local cluster shares
CHECKPOINTS = os.path.join("..", "checkpoints")  # storage that outlives the tasks
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                                  task_index=resolver.task_id, protocol="grpc", start=True)
    if resolver.task_type == "ps":
        while not os.path.exists(LOST):
            time.sleep(0.1)
        os._exit(1)  # the parameter server's machine is lost in the middle of training
    server.join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
with strategy.scope():
    w = tf.Variable(0.0)
    steps = tf.Variable(0, dtype=tf.int64)
manager = tf.train.CheckpointManager(tf.train.Checkpoint(w=w, steps=steps), CHECKPOINTS, max_to_keep=2)
manager.restore_or_initialize()  # a restarted coordinator starts from the last checkpoint


@tf.function
def step():
    strategy.run(lambda: w.assign_add(1.0))
    steps.assign_add(1)


try:
    for stage in range(4):  # 4 stages of 10 steps, a checkpoint after each
        for _ in range(10):
            coordinator.schedule(step)
        coordinator.join()
        manager.save()
        print("stage", stage, "saved at step", int(steps.numpy()))
        if stage == 1:
            open(LOST, "w").close()
            time.sleep(3)
except tf.errors.UnavailableError as error:
    print("a parameter server was lost:", type(error).__name__)

# What the restarted job finds: the last checkpoint, with both counts of the same step.
w_again, steps_again = tf.Variable(0.0), tf.Variable(0, dtype=tf.int64)
tf.train.Checkpoint(w=w_again, steps=steps_again).restore(manager.latest_checkpoint).expect_partial()
print("a restart resumes at step", int(steps_again.numpy()), "with w =", float(w_again.numpy()))
assert int(steps_again.numpy()) == 20 and float(w_again.numpy()) == 20.0
# --8<-- [end:example]
