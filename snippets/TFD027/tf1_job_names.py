# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "ValueError", match = "Disallowed task type found in cluster spec" }
# "tf2.4" = { raises = "ValueError", match = "`task_type` 'worker' not found in cluster_spec" }
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-worker runner" }
# ///
# --8<-- [start:example]
import json
import os

# A start script rebuilds TF_CONFIG from its --worker_hosts list (the flag of
# hand-made TF 1 clusters) and keeps the flag's name as the job's name:
given = json.loads(os.environ["TF_CONFIG"])  # the right one, from the launcher
os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"worker_hosts": given["cluster"]["worker"]},
    "task": given["task"],  # {"type": "worker", "index": i}
})

import tensorflow as tf  # noqa: E402

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # reads TF_CONFIG


def step():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


print(strategy.experimental_local_results(strategy.run(step)))
# --8<-- [end:example]
