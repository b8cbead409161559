# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15's tf.data has no NoneTensorSpec: Dataset.map refuses a None in an element, with or without a strategy" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = tf.reshape(tf.range(192, dtype=tf.float32) % 7 / 7.0, [64, 3])
y = tf.reduce_sum(x, axis=1, keepdims=True)


def examples(y, weights=None):
    # Put in each element only what exists: (x, y) without weights, (x, y, weights) with them
    parts = (x, y) if weights is None else (x, y, weights)
    return tf.data.Dataset.from_tensor_slices(parts).batch(8)


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


# no weights, then a second model with another output shape and real per-example weights
for units, weights in ((1, None), (2, tf.fill([64], 0.5))):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    losses = model.fit(examples(tf.tile(y, [1, units]), weights), epochs=2, verbose=0).history["loss"]
    kernel = type(tf_variable(model.layers[-1].kernel)).__name__
    print(units, "output(s), weighted:", weights is not None, "| loss fell:", losses[1] < losses[0],
          "| kernel:", kernel)
    assert losses[1] < losses[0] and kernel == "MirroredVariable"
# --8<-- [end:example]
