# /// tfdist
# [expect]
# default = { raises = "InvalidArgumentError", match = "Trying to access resource .* located in device .*CPU:[1-3] from device .*CPU:0" }
# "tf2.21-keras3" = { raises = "UnimplementedError", match = "We failed to lift variable creations out of this tf.function, so this tf.function cannot be run on XLA" }
# "tf2.4" = { not-applicable = "tf.function has no jit_compile argument before TF 2.5 (it was called experimental_compile)" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.function(jit_compile=...) and no Strategy.run" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])  # weights made on the first call
    optimizer = tf.keras.optimizers.SGD(0.5, momentum=0.9)  # slots made on the first step


@tf.function(jit_compile=True)
def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2) / 4.0
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def train_step(x):
    return strategy.run(replica_step, args=(x,))


train_step(tf.ones([1, 3]))
# --8<-- [end:example]
