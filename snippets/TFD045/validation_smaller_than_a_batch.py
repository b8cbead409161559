# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "InvalidArgumentError", match = "Inputs to operation AddN of type AddN must have the same size and shape\\.\\s+Input 0: \\[3,3\\] != input 3: \\[1,3\\]" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 16


def batches(x):  # x and its targets in global batches; the last one is short when len(x) is no multiple of 16
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(GLOBAL_BATCH)


x_train = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)  # 4 full batches
x_val = np.linspace(1, 2, 30, dtype="float32").reshape(10, 3)  # fewer examples than one batch

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")

history = model.fit(batches(x_train), validation_data=batches(x_val), epochs=2, verbose=0)
print("epochs validated:", len(history.history["val_loss"]), "on", strategy.num_replicas_in_sync, "replicas")
assert len(history.history["val_loss"]) == 2
# --8<-- [end:example]
