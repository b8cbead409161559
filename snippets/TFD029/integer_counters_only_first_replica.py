# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

KERAS3 = hasattr(tf.keras, "ops")  # Keras 3 names an aggregation with a string, Keras 2 with the enum
FIRST = "only_first_replica" if KERAS3 else tf.VariableAggregation.ONLY_FIRST_REPLICA


class CountBatches(tf.keras.layers.Layer):
    """Passes its input through and counts the training steps and the examples of all replicas."""

    def build(self, input_shape):
        self.steps = self.add_weight(name="steps", shape=(), dtype="int32", initializer="zeros",
                                     trainable=False, aggregation=FIRST)
        self.examples = self.add_weight(name="examples", shape=(), dtype="int32", initializer="zeros",
                                        trainable=False, aggregation=FIRST)

    def call(self, x, training=False):
        if training:
            self.steps.assign_add(1)  # the same on every replica: the first replica's is kept
            replica = tf.distribute.get_replica_context()  # add up the replicas' shares first
            self.examples.assign_add(replica.all_reduce("sum", tf.shape(x)[0]))
        return x


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    counter = CountBatches()
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), counter, tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")


def check(steps, examples):
    for label, expected in (("steps", steps), ("examples", examples)):
        weight = getattr(counter, label)
        variable = weight.value if KERAS3 else weight  # Keras 3 wraps the tf.Variable
        copies = strategy.experimental_local_results(variable)
        values = [int(v) for v in copies]
        print(label, values)
        assert type(variable).__name__ == "MirroredVariable", type(variable)
        assert len({v.device for v in copies}) == 4 and values == [expected] * 4, values


x = np.arange(30, dtype="float32").reshape(10, 3)
y = x.sum(axis=1, keepdims=True)
model.fit(x, y, batch_size=4, verbose=0)  # batches of 4, 4 and 2: the last one leaves 2 replicas empty
check(steps=3, examples=10)
model.fit(x, y, batch_size=8, epochs=2, verbose=0)  # a second fit: other batches, two epochs
check(steps=3 + 4, examples=10 + 20)
# --8<-- [end:example]
