# /// tfdist
# [expect]
# default = { prints = "none: \\[3, 3, 2, 2\\]\\nsum: \\[10, 10, 10, 10\\]" }
# "tf2.21-keras3" = { prints = "none: \\[3, 3, 2, 2\\]\\nsum: \\[82, 82, 82, 82\\]" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

KERAS3 = hasattr(tf.keras, "ops")  # Keras 3 names an aggregation with a string, Keras 2 with the enum


class CountExamples(tf.keras.layers.Layer):
    """Passes its input through and adds up the examples its replica was given."""

    def __init__(self, aggregation):
        super().__init__()
        self.aggregation = aggregation if KERAS3 else getattr(tf.VariableAggregation, aggregation.upper())

    def build(self, input_shape):
        self.examples = self.add_weight(name="examples", shape=(), dtype="int32", initializer="zeros",
                                        trainable=False, aggregation=self.aggregation)

    def call(self, x, training=False):
        if training:
            self.examples.assign_add(tf.shape(x)[0])
        return x


strategy = tf.distribute.MirroredStrategy()
x = np.arange(30, dtype="float32").reshape(10, 3)  # 10 examples in batches of 4, 4 and 2
for aggregation in ("none", "sum"):
    with strategy.scope():
        counter = CountExamples(aggregation)
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), counter, tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, x.sum(axis=1, keepdims=True), batch_size=4, verbose=0)
    variable = counter.examples.value if KERAS3 else counter.examples
    print("%s: %s" % (aggregation, [int(v) for v in strategy.experimental_local_results(variable)]))
# --8<-- [end:example]
