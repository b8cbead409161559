# /// tfdist
# [expect]
# default = { prints = "returns tf\\.reduce_sum\\(\\): w = 0\\.6 \\(one device: -0\\.6\\)" }
# "tf2.21-keras3" = { prints = "returns tf\\.reduce_mean\\(\\): w = 0\\.2 \\(one device: 0\\.8\\)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: name the devices, because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
x, y = np.ones((8, 1), "float32"), np.zeros((8, 1), "float32")  # one batch of 8: 2 on each replica


def per_example(y_true, y_pred):
    return tf.square(y_pred - y_true)  # one loss per example: Keras reduces it


losses = {
    '"mse"': lambda: "mse",
    'MeanSquaredError(reduction="sum")': lambda: tf.keras.losses.MeanSquaredError(reduction="sum"),
    "a function that returns one loss per example": lambda: per_example,
    "a function that returns tf.reduce_mean()": lambda: lambda t, p: tf.reduce_mean(tf.square(p - t)),
    "a function that returns tf.reduce_sum()": lambda: lambda t, p: tf.reduce_sum(tf.square(p - t)),
}


def w_after_one_step(loss, scope):
    with scope:
        dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones", input_shape=(1,))
        model = tf.keras.Sequential([dense])  # w = 1.0, one plain SGD step of 0.1
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss=loss())
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    return round(float(model.get_weights()[0][0, 0]), 4)


for name, loss in losses.items():
    distributed = w_after_one_step(loss, strategy.scope())
    one_device = w_after_one_step(loss, tf.distribute.get_strategy().scope())  # the default strategy
    print("%s: w = %s (one device: %s)" % (name, distributed, one_device))
# --8<-- [end:example]
