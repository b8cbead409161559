# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "ValueError", match = "The `task_id` 4 exceeds the maximum id of worker" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import json
import os

# A start script takes each machine's rank from a scheduler that counts from 1,
# and writes it into TF_CONFIG as it is:
launcher = json.loads(os.environ["TF_CONFIG"])
rank = launcher["task"]["index"] + 1  # 1, 2, 3, 4
os.environ["TF_CONFIG"] = json.dumps({
    "cluster": launcher["cluster"],  # 4 workers: indexes 0 to 3
    "task": {"type": "worker", "index": rank},
})

import tensorflow as tf  # noqa: E402

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # reads TF_CONFIG


def step():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


print(strategy.experimental_local_results(strategy.run(step)))
# --8<-- [end:example]
