# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy; its experimental one predates the Keras fit and SavedModel path of this example" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy raises 'Attempt to convert a value (PerReplica...)' before any save (keras-team/keras#20585); the CheckpointManager fix covers Keras 3" }
# ///
# --8<-- [start:example]
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

task = json.loads(os.environ["TF_CONFIG"])["task"]
is_chief = task["type"] == "chief" or (task["type"] == "worker" and task["index"] == 0)
SHARED = os.path.join("..", "shared-save")  # every worker sees it (a bucket, NFS)


def write_dir(path):
    # The chief writes the real copy; every other worker a private one that nobody reads.
    return path if is_chief else tempfile.mkdtemp(prefix="worker%d-" % task["index"])


strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
data = tf.data.Dataset.from_tensor_slices((tf.ones((16, 3)), tf.ones((16, 2)))).batch(8)


@tf.function
def count(flag):  # a replica function: the sum of every worker's flag
    return tf.distribute.get_replica_context().all_reduce("sum", tf.constant(flag))


before = None
for stage in range(2):  # train, save, load back; then once more
    model.fit(data, epochs=1, verbose=0)
    path = write_dir(os.path.join(SHARED, "model"))
    model.save(path)  # every worker calls save: it runs collectives
    saved = float(tf.io.gfile.exists(os.path.join(path, "saved_model.pb")))
    workers_saved = strategy.experimental_local_results(strategy.run(count, args=(saved,)))[0]
    assert float(workers_saved) == 4.0, workers_saved
    print("stage", stage, "saved by", int(workers_saved), "workers")
    if not is_chief:
        tf.io.gfile.rmtree(path)  # nobody reads this copy
        continue
    loaded = tf.keras.models.load_model(path)  # a fresh model from the chief's copy
    weights = model.get_weights()
    for a, b in zip(loaded.get_weights(), weights):
        np.testing.assert_allclose(a, b)
    assert before is None or not np.allclose(before[0], weights[0])  # the newer weights
    before = weights
    print("stage", stage, "the chief's copy loads with the trained weights")
# --8<-- [end:example]
