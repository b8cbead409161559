# /// tfdist
# restart-kernel = "a MirroredStrategy created in a process where another one has already run collective operations starts its collective keys where the first one did; after the collective error every later collective operation fails until the process restarts"
# [expect]
# default = { raises = "InvalidArgumentError", match = "Shape mismatch in the collective instance 100\\. Op at device \\S+ expected shape \\[21\\] but another member in the group expected shape \\[41\\]" }
# "tf2.21-keras3" = { raises = ["InvalidArgumentError", "CancelledError", "AssertionError"], match = "Shape mismatch in the collective instance 100\\. Op at device \\S+ expected shape \\[21\\] but another member in the group expected shape \\[41\\]|Function was cancelled before it was started|took \\d of 2 training steps" }
# "tf2.4" = "passes"
# "tf2.5" = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


def train(width):
    strategy = tf.distribute.MirroredStrategy()  # a new strategy for every model
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(width)(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
        model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((16, 3), "float32"), np.zeros((16, 1), "float32"), batch_size=8, epochs=1, verbose=0)
    steps = int(model.optimizer.iterations.numpy())  # 16 examples in batches of 8: 2 steps
    print(f"trained the model with {width} hidden units on {strategy.num_replicas_in_sync} replicas, {steps} steps")
    assert steps == 2, f"the model with {width} hidden units took {steps} of 2 training steps"
    return model


trained = {}  # every model kept, to compare them later (each keeps its strategy: model.distribute_strategy)
for width in (8, 4):  # two models of different sizes, one after the other, in one process
    trained[width] = train(width)
# --8<-- [end:example]
