# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "InvalidArgumentError", match = "Inputs to operation AddN of type AddN must have the same size and shape\\.\\s+Input 0: \\[5,3\\] != input 3: \\[3,3\\]" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
BATCH = 18  # chosen without looking at the replicas: 4 of them get 5, 5, 5 and 3 examples

x = np.linspace(0, 1, 216, dtype="float32").reshape(72, 3)  # 4 full batches of 18
data = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(BATCH)

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")

history = model.fit(data, epochs=2, verbose=0)
print("epochs trained:", len(history.history["loss"]), "on", strategy.num_replicas_in_sync, "replicas")
assert len(history.history["loss"]) == 2
# --8<-- [end:example]
