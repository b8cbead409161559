# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "was not created in the distribution strategy scope of" }
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Need to be inside \"with strategy\\.scope\\(\\)\" for" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))  # weights created here, no scope

with strategy.scope():  # only compile() is inside the scope
    model.compile(optimizer="adam", loss="mse")

model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
print("trained")
# --8<-- [end:example]
