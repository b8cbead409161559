# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did (TFD016): a model of other shapes in the cell above makes this one fail"
# [expect]
# default = { raises = "RuntimeError", match = "Mixing different tf\\.distribute\\.Strategy objects: <[^>]*MirroredStrategy[^>]*> is not <[^>]*MirroredStrategy" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def build_model():
    inputs = tf.keras.Input(shape=(3,))
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))


x, y = np.ones((16, 3), "float32"), np.zeros((16, 2), "float32")

# Stage 1: training
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)

# Stage 2: fine-tuning, with a new strategy (same devices, another object)
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
print("fine-tuned")
# --8<-- [end:example]
