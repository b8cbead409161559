# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys (TFD016), and each example of this page creates its own"
# [expect]
# default = { raises = "RuntimeError", match = "NaN or Inf loss encountered at batch 1\\. Loss value: inf" }
# "tf2.21-tfkeras" = { not-applicable = "Keras 2 (tf-keras): its TerminateOnNaN has no raise_error (it stops training with a printed line), and its LossScaleOptimizer skips the step on every replica (overflow_on_replica_1.py passes there)" }
# "tf2.15" = { not-applicable = "Keras 2: its TerminateOnNaN has no raise_error (it stops training with a printed line), and its LossScaleOptimizer skips the step on every replica (overflow_on_replica_1.py passes there)" }
# "tf2.5" = { not-applicable = "Keras 2: its TerminateOnNaN has no raise_error (it stops training with a printed line), and its LossScaleOptimizer skips the step on every replica (overflow_on_replica_1.py passes there)" }
# "tf2.4" = { not-applicable = "Keras 2: its TerminateOnNaN has no raise_error (it stops training with a printed line), and its LossScaleOptimizer skips the step on every replica (overflow_on_replica_1.py passes there)" }
# "tf1.15" = { not-applicable = "TF 1.15 has tf.keras.mixed_precision.LossScaleOptimizer only under experimental, and its MirroredStrategy() counts GPUs only, so it does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)),
                                 tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))
    model.compile(optimizer=optimizer, loss="mse")

# Two global batches of 8 examples. In batch 0, replica 1's examples (2 and 3) are large: the loss
# is finite, its gradients times the loss scale are not. Batch 1 is ordinary.
x = np.ones((16, 2), "float32")
x[2:4] = 1e18
model.fit(x, np.zeros((16, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0,
          callbacks=[tf.keras.callbacks.TerminateOnNaN(raise_error=True)])
print("trained 2 batches, every loss finite")
# --8<-- [end:example]
