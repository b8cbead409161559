# /// tfdist
# restart-kernel = "the cell above stopped with a collective error, and TensorFlow keeps that error for every later collective operation in the process until it restarts (its message ends: Restart your program to reset)"
# [expect]
# default = { raises = ["InvalidArgumentError", "CancelledError"], match = "Collective ops is aborted by: Shape mismatch in the collective instance \\d+" }
# "tf2.4" = "passes"
# "tf2.5" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import time

import numpy as np
import tensorflow as tf


def train(strategy, width):
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(width)(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
        model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((16, 3), "float32"), np.zeros((16, 1), "float32"), batch_size=8, epochs=1, verbose=0)
    print(f"trained the model with {width} hidden units")


try:  # the mistake first: a new strategy for each model
    for width in (8, 4):
        train(tf.distribute.MirroredStrategy(), width)
except tf.errors.OpError:  # InvalidArgumentError, or CancelledError: which replica's error comes first
    print("first attempt failed")

# then the fix, in the same process: a notebook cell corrected and run again, seconds later
time.sleep(3)
strategy = tf.distribute.MirroredStrategy()
for width in (8, 4):
    train(strategy, width)
# --8<-- [end:example]
