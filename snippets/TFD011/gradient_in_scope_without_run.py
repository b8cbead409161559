# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "handle`? is not available outside the replica context or a `tf\\.distribute\\.Strategy\\.update\\(\\)` call" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


with strategy.scope():  # a cross-replica context: train_step is not run by strategy.run
    loss = train_step(tf.ones((8, 2)), tf.zeros((8, 1)))
print("loss:", float(loss))
# --8<-- [end:example]
