# /// tfdist
# [expect]
# default = { prints = "epochs trained: 3 epochs validated: 3\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches\\. You may need to use the `\\.repeat\\(\\)` function" }
# "tf2.21-tfkeras" = { prints = "epochs trained: 3 epochs validated: 1\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 8 batches\\)" }
# "tf2.15" = { prints = "epochs trained: 3 epochs validated: 1\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 8 batches\\)" }
# "tf2.5" = { prints = "epochs trained: 3 epochs validated: 1\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 8 batches\\)" }
# "tf2.4" = { prints = "epochs trained: 3 epochs validated: 1\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 8 batches\\)" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging
import warnings

import numpy as np
import tensorflow as tf

PER_REPLICA_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
global_batch = PER_REPLICA_BATCH * strategy.num_replicas_in_sync  # 16: what one step takes


def data(n):  # n examples in global batches of 16
    x = np.linspace(0, 1, 3 * n, dtype="float32").reshape(n, 3)
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(global_batch)


class Keep(logging.Handler):  # Keras 2 logs its warning through TensorFlow's logger
    def emit(self, record):
        warned.append(record.getMessage())


with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")

warned = []
tf.get_logger().addHandler(Keep())
with warnings.catch_warnings(record=True) as caught:  # Keras 3 issues a Python warning
    warnings.simplefilter("always")
    # 32 validation examples are 2 global batches; the mistake counts them in per-replica batches: 8
    history = model.fit(data(64), epochs=3, validation_data=data(32), validation_steps=32 // PER_REPLICA_BATCH,
                        verbose=0)
warned += [str(w.message) for w in caught]

print("epochs trained:", len(history.history["loss"]), "epochs validated:", len(history.history.get("val_loss", [])))
for message in warned:
    if "ran out of data" in message:
        print("fit warned:", message)
# --8<-- [end:example]
