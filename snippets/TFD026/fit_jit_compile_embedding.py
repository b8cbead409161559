# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "No registered 'CollectiveGatherV2' OpKernel for XLA_CPU_JIT devices" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy fails first with 'Attempt to convert a value (PerReplica...)' (keras-team/keras#20585)" }
# "tf2.5" = { not-applicable = "Model.compile has no jit_compile argument in this Keras" }
# "tf2.4" = { not-applicable = "Model.compile has no jit_compile argument in this Keras" }
# "tf1.15" = { not-applicable = "Model.compile has no jit_compile argument in TF 1.15" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input((2,), dtype="int32"),
        tf.keras.layers.Embedding(10, 1),
        tf.keras.layers.Flatten(),
    ])
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)

x = np.array([[i, i + 1] for i in range(8)], np.int32)
y = np.zeros((8, 2), np.float32)
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
# --8<-- [end:example]
