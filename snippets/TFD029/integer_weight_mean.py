# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "creating distributed tf\\.Variable with aggregation=MEAN and a non-floating dtype is not supported, please use a different aggregation or dtype" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

KERAS3 = hasattr(tf.keras, "ops")  # Keras 3 names an aggregation with a string, Keras 2 with the enum
MEAN = "mean" if KERAS3 else tf.VariableAggregation.MEAN


class CountBatches(tf.keras.layers.Layer):
    """Passes its input through and counts the training batches it has seen."""

    def build(self, input_shape):
        self.batches = self.add_weight(name="batches", shape=(), dtype="int32", initializer="zeros",
                                       trainable=False, aggregation=MEAN)

    def call(self, x, training=False):
        if training:
            self.batches.assign_add(1)
        return x


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():  # the integer weight is created here, as a mirrored variable
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), CountBatches(), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

x = np.arange(30, dtype="float32").reshape(10, 3)
model.fit(x, x.sum(axis=1, keepdims=True), batch_size=4, verbose=0)
# --8<-- [end:example]
