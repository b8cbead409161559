# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Optimizer \\(.*\\) passed to `?model\\.compile`? was created inside (of )?a different distribution strategy scope than the model" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no OptimizerV2 (tf.keras.optimizers.legacy), and its compile() checks no optimizer" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them for reasons unrelated to this entry (AssertionError, or a graph tensor passed to an eager function)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

# OptimizerV2: tf.keras.optimizers up to Keras 2.10, tf.keras.optimizers.legacy from Keras 2.11
optimizers = getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers)
optimizer = optimizers.Adam(0.01)  # created outside the scope
print("starting at step", int(optimizer.iterations.numpy()))  # reading the counter creates it, here

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    model.compile(optimizer=optimizer, loss="mse")
model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
print("trained")
# --8<-- [end:example]
