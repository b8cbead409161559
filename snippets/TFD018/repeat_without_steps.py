# /// tfdist
# [expect]
# default = { hangs = 30 }
# "tf2.21-tfkeras" = { raises = "ValueError", match = "When providing an infinite dataset, you must specify the number of steps to run" }
# "tf2.15" = { raises = "ValueError", match = "When providing an infinite dataset, you must specify the number of steps to run" }
# "tf2.5" = { raises = "ValueError", match = "When providing an infinite dataset, you must specify the number of steps to run" }
# "tf2.4" = { raises = "ValueError", match = "When providing an infinite dataset, you must specify the number of steps to run" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
global_batch = 4 * strategy.num_replicas_in_sync  # 16: what one training step takes

x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
dataset = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(global_batch)

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")


class Watch(tf.keras.callbacks.Callback):  # says once where training is after 100 batches
    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if batch == 100:
            print(f"epoch {self.epoch + 1} of 3 is at batch {batch + 1}; the data holds 4 batches", flush=True)


# repeat() as the warning advises, but no steps_per_epoch: the data never ends, so neither does the epoch
model.fit(dataset.repeat(), epochs=3, callbacks=[Watch()], verbose=0)
print("trained", int(model.optimizer.iterations.numpy()), "steps")
# --8<-- [end:example]
