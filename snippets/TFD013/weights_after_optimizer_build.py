# /// tfdist
# [expect]
# default = "passes"
# "tf2.4" = { not-applicable = "OptimizerV2 has no build(), and the .weights.h5 file of this Keras holds no optimizer state: restore a tf.train.Checkpoint instead (restore_inside_scope.py)" }
# "tf2.5" = { not-applicable = "OptimizerV2 has no build(), and the .weights.h5 file of this Keras holds no optimizer state: restore a tf.train.Checkpoint instead (restore_inside_scope.py)" }
# "tf1.15" = { not-applicable = "TF 1.15's Keras trains under MirroredStrategy in graph mode; this page's question is about the TF 2 optimizers" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
y = np.ones((16, 2), "float32")


def compiled_model():  # two layers: kernels and biases of other shapes
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(5, kernel_initializer="ones")(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(hidden))
        model.compile(optimizer=tf.keras.optimizers.Adam(0.1), loss="mse")
    return model


def state(model):  # the optimizer's variables (step count, learning rate, m and v), in order
    variables = model.optimizer.variables
    variables = variables() if callable(variables) else variables
    return [v.value if isinstance(getattr(v, "value", None), tf.Variable) else v for v in variables]  # Keras 3


def save(model):
    path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
    model.save_weights(path)
    return path


model = compiled_model()  # the run without restarts
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
path = save(model)
for restart in (1, 2):  # each restart resumes from the file the one before wrote
    resumed = compiled_model()
    with strategy.scope():
        resumed.optimizer.build(resumed.trainable_variables)  # create its variables first, in the scope
        resumed.load_weights(path)
    resumed.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # the run without restarts
    same = len(state(model)) == len(state(resumed)) and all(
        np.allclose(a.numpy(), b.numpy()) for a, b in zip(state(model), state(resumed)))
    same_weights = all(np.allclose(a.numpy(), b.numpy()) for a, b in zip(model.weights, resumed.weights))
    slots = [v for v in state(resumed) if len(v.shape)]  # m and v: the variables with a shape
    kinds = sorted({type(v).__name__ for v in slots})
    copies = [len(strategy.experimental_local_results(v)) for v in slots]
    print("restart %d: after the next epoch %d slots (%s), optimizer state equal to that of the run "
          "without restarts: %s; weights equal: %s" % (restart, len(copies), ", ".join(kinds), same, same_weights))
    assert len(copies) == 8 and set(copies) == {4} and kinds == ["MirroredVariable"] and same and same_weights
    path = save(resumed)
# --8<-- [end:example]
