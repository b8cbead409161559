# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
y = x.sum(axis=1, keepdims=True)


def build(units):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return model


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


for units in (1, 2):  # a second model with another output shape
    targets = np.tile(y, [1, units])
    model = build(units)
    model.fit(x, targets, batch_size=16, epochs=2, verbose=0)
    model.save_weights("best.weights.h5")
    kept = model.get_weights()
    model.fit(x, targets, batch_size=16, epochs=2, verbose=0)

    # load into a model built the same way that has not trained or evaluated yet, and go on with it
    model = build(units)
    model.load_weights("best.weights.h5")
    restored = all(np.array_equal(a, b) for a, b in zip(kept, model.get_weights()))
    losses = model.fit(x, targets, batch_size=16, epochs=2, verbose=0).history["loss"]
    kernel = type(tf_variable(model.layers[-1].kernel)).__name__
    print(units, "output(s) | saved weights restored:", restored, "| loss fell:", losses[1] < losses[0],
          "| kernel:", kernel)
    assert restored and losses[1] < losses[0] and kernel == "MirroredVariable"
# --8<-- [end:example]
