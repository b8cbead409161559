# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Metric \\(.*\\) passed to `?model\\.compile`? was created inside (of )?a different distribution strategy scope than the model" }
# "tf2.21-keras3" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them for reasons unrelated to this entry (AssertionError, or a graph tensor passed to an eager function)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

outside = tf.keras.metrics.MeanAbsoluteError(name="outside")  # a metric object, created outside the scope

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=[outside, "mae"])  # "mae": created by compile
history = model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)
logs = {name: float(values[0]) for name, values in history.history.items()}
compiled = logs.get("mae", logs.get("mean_absolute_error"))
print("metric created outside: %.4f - created by compile: %.4f" % (logs["outside"], compiled))
assert abs(logs["outside"] - compiled) < 1e-5
# --8<-- [end:example]
