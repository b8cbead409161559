# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did; after the collective error every later collective operation fails until the process restarts"
# [expect]
# default = { raises = "InvalidArgumentError", match = "Shape mismatch in the collective instance 100\\. Op at device \\S+ expected shape \\[244\\] but another member in the group expected shape \\[50\\]" }
# "tf2.21-keras3" = { raises = ["InvalidArgumentError", "CancelledError", "AssertionError"], match = "Shape mismatch in the collective instance 100\\. Op at device \\S+ expected shape \\[244\\] but another member in the group expected shape \\[50\\]|Function was cancelled before it was started|took \\d of 2 training steps" }
# "tf2.5" = "passes"
# "tf2.4" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

x = np.ones((16, 3), "float32")

# Stage 1: a model with 2 outputs, under its strategy
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    features = tf.keras.layers.Dense(8, name="features")
    base = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(features(inputs)))
    base.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
base.fit(x, np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
print("stage 1 trained")
trained = base.get_layer("features").get_weights()  # NumPy arrays: they belong to no strategy

# Stage 2: a new strategy, and a new model of other shapes (a new head with 4 outputs)
# built in its scope, with the trained feature layer's values copied in
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    features = tf.keras.layers.Dense(8, name="features")
    hidden = tf.keras.layers.Dense(16, activation="relu")(features(inputs))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(4)(hidden))
    features.set_weights(trained)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss="mse")
model.fit(x, np.zeros((16, 4), "float32"), batch_size=8, epochs=1, verbose=0)
steps = int(model.optimizer.iterations.numpy())  # 16 examples in batches of 8: 2 steps
print("stage 2 trained on", strategy.num_replicas_in_sync, "replicas,", steps, "steps")
assert steps == 2, f"stage 2 took {steps} of 2 training steps"
# --8<-- [end:example]
