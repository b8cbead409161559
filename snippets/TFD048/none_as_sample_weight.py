# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "'NoneType' object has no attribute 'device'" }
# "tf2.4" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'rank'" }
# "tf2.5" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'rank'" }
# "tf2.15" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'shape'" }
# "tf2.21-tfkeras" = { raises = "AttributeError", match = "'NoneTensorSpec' object has no attribute 'shape'" }
# "tf1.15" = { not-applicable = "TF 1.15's tf.data has no NoneTensorSpec: Dataset.map refuses a None in an element, with or without a strategy" }
# ///
# --8<-- [start:example]
import contextlib

import tensorflow as tf

# Examples as (features, label, sample weight). This data has no weights, so the loader
# puts None in their place, and Keras reads None as "no sample weights".
x = tf.reshape(tf.range(192, dtype=tf.float32) % 7 / 7.0, [64, 3])
y = tf.reduce_sum(x, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda f, l: (f, l, None)).batch(8)


def train(scope):
    with scope:
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return model.fit(dataset, epochs=2, verbose=0).history["loss"]


losses = train(contextlib.nullcontext())  # one device: it trains
print("one device, loss fell:", losses[1] < losses[0])
assert losses[1] < losses[0]

strategy = tf.distribute.MirroredStrategy()
print("replicas in sync:", strategy.num_replicas_in_sync)
train(strategy.scope())  # the same dataset and model, under the strategy
# --8<-- [end:example]
