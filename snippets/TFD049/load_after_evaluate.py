# /// tfdist
# [expect]
# default = "passes"
# "tf2.15" = { raises = "TypeError", match = "unsupported operand type\\(s\\) for /: 'Dataset' and 'int'" }
# "tf2.21-tfkeras" = { raises = "TypeError", match = "unsupported operand type\\(s\\) for /: 'Dataset' and 'int'" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
y = x.sum(axis=1, keepdims=True)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")

# no training: evaluate only builds the compiled metrics (here the loss's running mean)
model.evaluate(x, y, batch_size=16, verbose=0)
print("metric variables:", sorted({type(v).__name__ for m in model.metrics for v in m.variables}))
model.save_weights("model.weights.h5")
model.load_weights("model.weights.h5")
print("loaded")
# --8<-- [end:example]
