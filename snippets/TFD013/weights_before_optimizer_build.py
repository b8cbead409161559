# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = { prints = "optimizer slots right after load_weights: 0\\n[\\s\\S]*slots equal to those of the run without the restart: False" }
# "tf1.15" = { not-applicable = "TF 1.15's Keras trains under MirroredStrategy in graph mode; this page's question is about the TF 2 optimizers" }
# ///
# --8<-- [start:example]
import logging
import os
import tempfile
import warnings

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
y = np.ones((16, 2), "float32")


def compiled_model():
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
        model.compile(optimizer=tf.keras.optimizers.Adam(0.1), loss="mse")
    return model


def kernel_slots(model):
    kernel = model.trainable_variables[0]
    opt_vars = model.optimizer.variables
    opt_vars = opt_vars() if callable(opt_vars) else opt_vars
    return [v for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]


model = compiled_model()
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
model.save_weights(path)

said = []  # what load_weights warns: Keras 3 through warnings, Keras 2 through absl's logger


class Keep(logging.Handler):
    def emit(self, record):
        said.append(record.getMessage())


logging.getLogger("absl").addHandler(Keep())
resumed = compiled_model()
with warnings.catch_warnings(record=True) as caught, strategy.scope():
    warnings.simplefilter("always")
    resumed.load_weights(path)  # the optimizer has no slots yet
said += [str(w.message) for w in caught]
print("warned about the optimizer:", [m for m in said if "optimizer" in m])
print("optimizer slots right after load_weights:", len(kernel_slots(resumed)))

resumed.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # the run without the restart
same = all(np.allclose(a.numpy(), b.numpy()) for a, b in zip(kernel_slots(model), kernel_slots(resumed)))
kernel = resumed.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("kernel copies on the replicas:", len(copies), "identical:", all(np.array_equal(copies[0], c) for c in copies))
print("kernels equal to that of the run without the restart:",
      np.allclose(model.trainable_variables[0].numpy(), kernel.numpy()))
print("slots equal to those of the run without the restart:", same)
# --8<-- [end:example]
