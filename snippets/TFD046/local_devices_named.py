# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import json
import os

# A platform set TF_CONFIG for this machine, as the chief of a chief and 3 workers:
os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"chief": ["localhost:2222"],
                "worker": ["localhost:2223", "localhost:2224", "localhost:2225"]},
    "task": {"type": "chief", "index": 0},
})

import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()
config = tf.config.experimental
local = config.list_logical_devices("GPU") or config.list_logical_devices("CPU")
strategy = tf.distribute.MirroredStrategy([d.name for d in local])  # this machine's devices, by name
print("devices:", strategy.extended.worker_devices)
assert not any("/job:chief" in d or "/job:worker" in d for d in strategy.extended.worker_devices)

with strategy.scope():
    weight = tf.Variable(1.0, name="weight")


def step():
    ctx = tf.distribute.get_replica_context()
    return ctx.replica_id_in_sync_group, weight * tf.cast(ctx.replica_id_in_sync_group, tf.float32)


run = getattr(strategy, "run", None) or strategy.experimental_run_v2  # TF 1.15 has only the latter
ids, products = run(step)
with tf.compat.v1.Session() as session:
    session.run(tf.compat.v1.global_variables_initializer())
    for stage in range(2):  # a second session.run on the same graph
        got = session.run([strategy.experimental_local_results(ids),
                           strategy.experimental_local_results(products)])
        print("stage", stage, "replica ids:", [int(i) for i in got[0]], "products:", [float(p) for p in got[1]])
        assert [int(i) for i in got[0]] == [0, 1, 2, 3] and [float(p) for p in got[1]] == [0.0, 1.0, 2.0, 3.0]
# --8<-- [end:example]
