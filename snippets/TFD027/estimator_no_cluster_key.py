# /// tfdist
# [expect]
# default = { raises = "ValueError", match = 'If "cluster" is not set in TF_CONFIG, task type must be WORKER'  }
# "tf2.21-keras3" = { not-applicable = "this TensorFlow has no tf.estimator (its release notes list the removal)" }
# "tf2.21-tfkeras" = { not-applicable = "this TensorFlow has no tf.estimator (its release notes list the removal)" }
# ///
# --8<-- [start:example]
import json
import os

# TF_CONFIG as a launcher wrote it for a worker, but with the cluster under another key
# (the sparse cluster of an operator with dynamic workers), for its chief:
os.environ["TF_CONFIG"] = json.dumps({
    "sparseCluster": {"chief": ["localhost:2222"], "worker": ["localhost:2224", "localhost:2225"]},
    "task": {"type": "chief", "index": 0},
})

import tensorflow as tf  # noqa: E402

if tf.__version__.startswith(("1.", "2.0.")):
    # Before TF 2.1, MirroredStrategy() counts GPUs only and takes CPU:0 alone on a machine
    # without them: name the machine's 4 devices, its GPUs if it has any
    config = tf.config.experimental
    devices = config.list_logical_devices("GPU") or config.list_logical_devices("CPU")
    strategy = tf.distribute.MirroredStrategy([d.name for d in devices])
else:
    strategy = tf.distribute.MirroredStrategy()

# RunConfig reads TF_CONFIG when it is created: without "cluster" it is one local worker.
run_config = tf.estimator.RunConfig(train_distribute=strategy)
print(run_config.task_type, run_config.task_id)
# --8<-- [end:example]
