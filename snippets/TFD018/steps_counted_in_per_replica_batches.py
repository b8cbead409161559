# /// tfdist
# [expect]
# default = { prints = "batches trained in each epoch that ran: \\[4, 4, 4\\]\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches\\. You may need to use the `\\.repeat\\(\\)` function" }
# "tf2.21-tfkeras" = { prints = "batches trained in each epoch that ran: \\[4\\]\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 48 batches\\)" }
# "tf2.15" = { prints = "batches trained in each epoch that ran: \\[4\\]\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 48 batches\\)" }
# "tf2.5" = { prints = "batches trained in each epoch that ran: \\[4\\]\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 48 batches\\)" }
# "tf2.4" = { prints = "batches trained in each epoch that ran: \\[4\\]\\nfit warned: Your input ran out of data; interrupting training\\. Make sure that your dataset or generator can generate at least `steps_per_epoch \\* epochs` batches \\(in this case, 48 batches\\)" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import logging
import warnings

import numpy as np
import tensorflow as tf

PER_REPLICA_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
global_batch = PER_REPLICA_BATCH * strategy.num_replicas_in_sync  # 16: what one training step takes

x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
y = x.sum(axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)  # 64 examples: 4 batches
steps_per_epoch = len(x) // PER_REPLICA_BATCH  # the mistake: 16, counted in per-replica batches

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")


class CountBatches(tf.keras.callbacks.Callback):  # the batches each epoch really trained on
    def on_epoch_begin(self, epoch, logs=None):
        per_epoch.append(0)

    def on_train_batch_end(self, batch, logs=None):
        per_epoch[-1] += 1


class Keep(logging.Handler):  # Keras 2 logs its warning through TensorFlow's logger
    def emit(self, record):
        warned.append(record.getMessage())


per_epoch, warned = [], []
tf.get_logger().addHandler(Keep())
with warnings.catch_warnings(record=True) as caught:  # Keras 3 issues a Python warning
    warnings.simplefilter("always")
    model.fit(dataset, epochs=3, steps_per_epoch=steps_per_epoch, verbose=0, callbacks=[CountBatches()])
warned += [str(w.message) for w in caught]

print("asked for 3 epochs of", steps_per_epoch, "steps; batches trained in each epoch that ran:", per_epoch)
for message in warned:
    if "ran out of data" in message:
        print("fit warned:", message)
# --8<-- [end:example]
