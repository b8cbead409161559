# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "UnavailableError", match = "Collective ops is aborted by" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy; its experimental one predates the Keras fit and SavedModel path of this example" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy raises 'Attempt to convert a value (PerReplica...)' before any save (keras-team/keras#20585)" }
# ///
# --8<-- [start:example]
import json
import os

import tensorflow as tf

task = json.loads(os.environ["TF_CONFIG"])["task"]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
data = tf.data.Dataset.from_tensor_slices((tf.ones((16, 3)), tf.ones((16, 2)))).batch(8)
model.fit(data, epochs=1, verbose=0)
print("trained")

if task["index"] == 0:  # "only the chief should save": the other workers end here
    model.save(os.path.join("..", "shared-chief-only", "model"))
    print("chief saved")
# --8<-- [end:example]
