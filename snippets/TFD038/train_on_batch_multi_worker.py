# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "ValueError", match = "Invalid reduction dimension 0 for input with 0 dimensions" }
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
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")

x = np.ones((8, 3), "float32")  # the same global batch of 8 on every worker
y = np.ones((8, 1), "float32")
loss = model.train_on_batch(x, y)  # one step of a hand-written loop (a GAN's, say)
print("reported loss:", round(float(loss), 4))
kernel = model.layers[0].kernel.numpy().ravel().tolist()
print("kernel after one step:", [round(k, 4) for k in kernel])
assert np.allclose(kernel, 0.2)  # one SGD step from zero: 0 - 0.1 * 2 * (0 - 1)
# --8<-- [end:example]
