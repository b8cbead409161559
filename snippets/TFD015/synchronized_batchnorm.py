# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "written for TF 2 Keras (fit and load_model of a .keras file under MirroredStrategy)" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def SyncBatchNorm():  # a layer that is still synchronized once the model is loaded back
    experimental = getattr(tf.keras.layers, "experimental", None)
    if hasattr(experimental, "SyncBatchNormalization"):  # Keras 2: a class of its own, whose
        return experimental.SyncBatchNormalization()  # name the file keeps (its config has no flag)
    return tf.keras.layers.BatchNormalization(synchronized=True)  # Keras 3: the file keeps the flag


x = np.arange(48, dtype="float32").reshape(16, 3) / 48
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    norm = SyncBatchNorm()  # statistics of the global batch, the same on every replica
    hidden = norm(tf.keras.layers.Dense(4, kernel_initializer="ones")(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, kernel_initializer="ones")(hidden))
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, np.ones((16, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)


def first(variable):  # the first element of each copy that the replicas hold
    variable = variable.value if isinstance(getattr(variable, "value", None), tf.Variable) else variable
    return [round(float(c.numpy()[0]), 4) for c in strategy.experimental_local_results(variable)]


def saved_and_restored(model, norm):  # save, load back in the scope, compare with the model in memory
    moving_mean = [w for w in norm.weights if "moving_mean" in w.name][0]
    copies = first(moving_mean)
    print("copies of moving_mean on the replicas:", copies)
    path = os.path.join(tempfile.mkdtemp(), "model.keras")
    model.save(path)
    with strategy.scope():  # where the restored model can train on the replicas
        restored = tf.keras.models.load_model(path, compile=False, custom_objects={"SyncBatchNormalization": type(norm)})
    gap = float(np.max(np.abs(model.predict(x, verbose=0) - restored.predict(x, verbose=0))))
    print("restored model predicts like the model in memory:", gap < 1e-5)
    assert len(copies) == 4 and len(set(copies)) == 1 and gap < 1e-5
    return restored


restored = saved_and_restored(model, norm)
with strategy.scope():  # a second stage: the restored model trained on, with other data
    restored.compile(optimizer="sgd", loss="mse")
restored.fit(2 * x, np.zeros((16, 1), "float32"), batch_size=8, epochs=2, shuffle=False, verbose=0)
norm = [layer for layer in restored.layers if "normalization" in type(layer).__name__.lower()][0]
saved_and_restored(restored, norm)
# --8<-- [end:example]
