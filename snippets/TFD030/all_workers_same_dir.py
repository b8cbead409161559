# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = ["NotFoundError", "InvalidArgumentError"], match = "Op:MergeV2Checkpoints" }
# "tf2.4" = { raises = "NotFoundError", match = "variables_temp/part-00000-of-00001\\.\\S+; No such file or directory \\[Op:MergeV2Checkpoints\\]" }
# "tf2.5" = { raises = "NotFoundError", match = "variables_temp/part-00000-of-00001\\.\\S+; No such file or directory \\[Op:MergeV2Checkpoints\\]" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy; its experimental one predates the Keras fit and SavedModel path of this example" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy raises 'Attempt to convert a value (PerReplica...)' before any save (keras-team/keras#20585)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
data = tf.data.Dataset.from_tensor_slices((tf.ones((16, 3)), tf.ones((16, 2)))).batch(8)

for epoch in range(3):
    model.fit(data, epochs=1, verbose=0)
    # every worker saves, as it must, but all into the same shared folder
    model.save("../shared-same-dir/model")
# --8<-- [end:example]
