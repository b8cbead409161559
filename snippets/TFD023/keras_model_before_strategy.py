# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "RuntimeError", match = "Collective ops must be configured at program startup" }
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-worker runner" }
# ///
# --8<-- [start:example]
import tensorflow as tf

# A training script that builds its model first, as it did on one machine,
# and only then switches to several workers:
model = tf.keras.Sequential([
    tf.keras.Input((3,)),
    tf.keras.layers.Dense(4, activation="relu"),
    tf.keras.layers.Dense(1),
])

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # too late: the model started the runtime

with strategy.scope():
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
# --8<-- [end:example]
