# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "written for the TF 2 Keras generations whose formats it compares; TF 1.15's Keras saves SavedModel directories with tf.keras.experimental.export_saved_model" }
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
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(tf.keras.layers.Dense(4)(inputs)))
    model.compile(optimizer="adam", loss="mse")
model.fit(x, np.ones((16, 1), "float32"), batch_size=8, epochs=1, verbose=0)  # on the 4 replicas
expected = model.predict(x, verbose=0)
folder = tempfile.mkdtemp()


def kind(path):  # what model.save wrote
    if os.path.isdir(path):
        return "SavedModel directory"
    with open(path, "rb") as f:
        return {b"\x89HDF": "HDF5 file", b"PK\x03\x04": "zip (.keras) file"}.get(f.read(4), "other file")


for name in ("model.keras", "model.h5", "saved_model"):
    said = []
    for where in ("inside the scope", "outside the scope"):
        path = os.path.join(folder, where.split()[0] + "-" + name)
        try:
            if where == "inside the scope":
                with strategy.scope():
                    model.save(path)
            else:
                model.save(path)
        except Exception as error:  # the refusal is what this line reports
            said.append("%s: refused (%s)" % (where, type(error).__name__))
            continue
        loaded = tf.keras.models.load_model(path, compile=False)
        same = np.allclose(loaded.predict(x, verbose=0), expected, atol=1e-5)
        said.append("%s: %s, loaded with the same predictions: %s" % (where, kind(path), same))
        assert same
    print(name + ":\n  " + "\n  ".join(said))
    assert said[0].split(": ", 1)[1] == said[1].split(": ", 1)[1]  # the scope changes nothing
# --8<-- [end:example]
