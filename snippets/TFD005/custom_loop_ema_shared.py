# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "strategy.run does not exist in TF 1.15 (it has experimental_run_v2), and eager tf.function training loops are TF 2 style" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, activation="tanh")(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))  # 4 weights of 4 shapes
    optimizer = tf.keras.optimizers.SGD(0.1)
    if hasattr(optimizer, "build"):  # Keras 3 and the Keras 2.11+ optimizers: build in the scope (TFD001)
        optimizer.build(model.trainable_variables)
    weights = [tf_variable(v) for v in model.trainable_variables]
    # one EMA object each, created once, outside the per-replica function
    ema_replica = tf.train.ExponentialMovingAverage(0.5, name="ema_replica")
    ema_cross = tf.train.ExponentialMovingAverage(0.5, name="ema_cross")


@tf.function
def train_step(x, y):
    def replica_fn(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        ema_replica.apply(weights)  # variant 1: inside strategy.run (replica context)
        return tf.distribute.get_replica_context().replica_id_in_sync_group

    rids = strategy.run(replica_fn, args=(x, y))
    ema_cross.apply(weights)  # variant 2: after strategy.run (cross-replica context)
    return rids


features = tf.random.stateless_normal((24, 3), seed=(1, 2))  # 3 steps of 8 examples
labels = tf.random.stateless_normal((24, 1), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))
initial = [v.numpy() for v in weights]
expected = initial  # the averages start from the weights' initial values
with strategy.scope():  # trace under the scope: the part outside strategy.run is cross-replica
    for x, y in dataset:
        rids = train_step(x, y)
        expected = [0.5 * e + 0.5 * v.numpy() for e, v in zip(expected, weights)]  # decay 0.5

print("replica ids:", [int(r) for r in strategy.experimental_local_results(rids)])
assert [int(r) for r in strategy.experimental_local_results(rids)] == [0, 1, 2, 3]
assert not any(np.allclose(i, v.numpy()) for i, v in zip(initial, weights))  # every weight trained
for ema in (ema_replica, ema_cross):
    averages = [ema.average(v) for v in weights]
    copies = [[c.numpy() for c in strategy.experimental_local_results(a)] for a in averages]
    kinds = sorted({type(a).__name__ for a in averages})
    same = all(len(c) == 4 and all(np.array_equal(c[0], other) for other in c) for c in copies)
    right = all(np.allclose(c[0], e, atol=1e-6) for c, e in zip(copies, expected))
    print("%s: %d averages, %s, same on all 4 devices: %s, equal to the average of the weights after each step: %s"
          % (ema.name, len(averages), kinds, same, right))
    assert kinds == ["MirroredVariable"] and same and right
# --8<-- [end:example]
