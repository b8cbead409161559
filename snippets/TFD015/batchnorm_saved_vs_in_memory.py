# /// tfdist
# [expect]
# default = { prints = "copies of moving_mean on the replicas: \\[0\\.0181, 0\\.0255, 0\\.033, 0\\.0404\\][\\s\\S]*restored model predicts like the model in memory: False" }
# "tf1.15" = { not-applicable = "written for TF 2 Keras (fit and load_model of a .keras file under MirroredStrategy)" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    norm = tf.keras.layers.BatchNormalization()
    hidden = norm(tf.keras.layers.Dense(4, kernel_initializer="ones")(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, kernel_initializer="ones")(hidden))
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, np.ones((16, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)


def first(variable):  # the first element of each copy that the replicas hold
    variable = variable.value if isinstance(getattr(variable, "value", None), tf.Variable) else variable
    return [round(float(c.numpy()[0]), 4) for c in strategy.experimental_local_results(variable)]


moving_mean = [w for w in norm.weights if "moving_mean" in w.name][0]
print("copies of moving_mean on the replicas:", first(moving_mean))

path = os.path.join(tempfile.mkdtemp(), "model.keras")
model.save(path)
restored = tf.keras.models.load_model(path, compile=False)
saved_mean = [w for w in restored.weights if "moving_mean" in w.name][0]
print("moving_mean in the saved file:", round(float(np.asarray(saved_mean)[0]), 4))
gap = float(np.max(np.abs(model.predict(x, verbose=0) - restored.predict(x, verbose=0))))
print("restored model predicts like the model in memory:", gap < 1e-5)
assert len(first(moving_mean)) == 4
# --8<-- [end:example]
