# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "SyncOnReadVariable does not support `assign_add` in cross-replica context" }
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Need to be inside \"with strategy\\.scope\\(\\)\" for" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() with no device list does not use the 4 logical CPU devices (it makes 1 replica)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


model = tf.keras.Sequential([tf.keras.layers.Dense(2)])  # constructed outside: no weights yet

with strategy.scope():
    model(tf.zeros((1, 3)))  # first call inside the scope: the weights are created as mirrored variables
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")

print("kernel:", type(tf_variable(model.trainable_variables[0])).__name__)
model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
print("trained")
# --8<-- [end:example]
