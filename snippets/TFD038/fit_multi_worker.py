# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "ValueError", match = "Attempt to convert a value \\(PerReplica" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first: before any op
with strategy.scope():
    model = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="zeros")]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")

x = np.ones((32, 3), "float32")
y = np.ones((32, 1), "float32")
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # global batch of 8
history = model.fit(dataset, epochs=2, verbose=0)
losses = [round(v, 4) for v in history.history["loss"]]
print("loss per epoch:", losses)
assert losses[1] < losses[0] < 1.0  # it trained, on every worker alike
# --8<-- [end:example]
