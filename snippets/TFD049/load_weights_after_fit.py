# /// tfdist
# [expect]
# default = "passes"
# "tf2.15" = { raises = "TypeError", match = "unsupported operand type\\(s\\) for /: 'Dataset' and 'int'" }
# "tf2.21-tfkeras" = { raises = "TypeError", match = "unsupported operand type\\(s\\) for /: 'Dataset' and 'int'" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import h5py
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
y = x.sum(axis=1, keepdims=True)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")

model.fit(x, y, batch_size=16, epochs=2, verbose=0)
model.save_weights("best.weights.h5")  # the weights to come back to
with h5py.File("best.weights.h5", "r") as saved:
    print("in the file:", sorted(saved))  # its top-level groups
kept = model.get_weights()
model.fit(x, y, batch_size=16, epochs=2, verbose=0)  # more training moves them on

model.load_weights("best.weights.h5")  # back to the saved weights
restored = all(np.array_equal(a, b) for a, b in zip(kept, model.get_weights()))
print("saved weights restored:", restored)
assert restored
# --8<-- [end:example]
