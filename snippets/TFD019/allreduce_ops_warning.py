# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging

import numpy as np
import tensorflow as tf


class KeepWarnings(logging.Handler):  # collects what TensorFlow's logger writes to the console
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


logged = KeepWarnings()
tf.get_logger().addHandler(logged)

# The cross-device ops a GPU machine got by default on older releases were NcclAllReduce, of the same
# family (AllReduceCrossDeviceOps) as HierarchicalCopyAllReduce; NCCL has no kernel for these CPUs.
strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())


def build():
    inputs = tf.keras.Input(shape=(2,), dtype="int32")
    vectors = tf.keras.layers.Embedding(50, 4, embeddings_initializer="ones")(inputs)
    outputs = tf.keras.layers.Dense(1, kernel_initializer="ones")(tf.keras.layers.Flatten()(vectors))
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    return model


with strategy.scope():
    model = build()
reference = build()  # the same model on one device, for comparison

ids = np.arange(32, dtype="int32").reshape(16, 2) % 50  # every example looks up rows of its own
y = np.linspace(0.0, 1.0, 16, dtype="float32").reshape(16, 1)
model.fit(ids, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
reference.fit(ids, y, batch_size=8, epochs=1, shuffle=False, verbose=0)

for message in logged.messages:
    if "IndexedSlices" in message:
        print("TensorFlow warned:", message)

table = model.layers[1].embeddings
table = table.value if isinstance(getattr(table, "value", None), tf.Variable) else table  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(table)]
one_device = reference.layers[1].get_weights()[0]
print("copies of the embedding table:", len(copies), "| rows changed:", int((one_device != 1).any(axis=1).sum()))
assert len(copies) == 4 and all(np.allclose(c, one_device, atol=1e-6) for c in copies)
print("every copy equals the one-device training: True")
# --8<-- [end:example]
