# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


class TwoLayer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.dense(x)


def functional():
    inputs = tf.keras.Input(shape=(3,))
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))


def sequential_no_shape():
    return tf.keras.Sequential([tf.keras.layers.Dense(2)])


def sequential_with_input():
    return tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


def weight_count(model):
    return len(model.weights) if model.built else 0  # unbuilt Keras 2 Sequential refuses .weights


for build in (functional, sequential_no_shape, sequential_with_input, TwoLayer):
    outside = build()  # no strategy scope
    with strategy.scope():
        inside = build()
    created = weight_count(outside), weight_count(inside)
    outside(tf.ones((2, 3)))  # the first call creates any weights that are still missing
    with strategy.scope():
        inside(tf.ones((2, 3)))
    kinds = (type(tf_variable(outside.weights[0])).__name__, type(tf_variable(inside.weights[0])).__name__)
    print("%-22s weights after construction: %d / %d; kernel: %s / %s (outside / inside scope)"
          % (build.__name__, created[0], created[1], kinds[0], kinds[1]))
    assert kinds == ("ResourceVariable", "MirroredVariable")


def replica_id():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


ids = [int(i) for i in strategy.experimental_local_results(strategy.run(replica_id))]
print("replica ids:", ids)
assert ids == [0, 1, 2, 3]
# --8<-- [end:example]
