# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


def make_optimizer(model):  # called inside the scope: the optimizer and its slots are created there
    optimizer = tf.keras.optimizers.Adam(0.01)
    # Create the slot variables now, eagerly, inside the scope. Keras 3 and the Keras 2.11+
    # optimizers have build(); the TF 2.4/2.5 OptimizerV2 has none (and needs none here).
    if hasattr(optimizer, "build"):
        optimizer.build(model.trainable_variables)
    return optimizer


def optimizer_variables(optimizer):
    return optimizer.variables() if callable(optimizer.variables) else optimizer.variables


with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    base = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.LayerNormalization(), tf.keras.layers.Dense(8)])
    base.trainable = False  # stage 1 trains the head only; stage 2 fine-tunes everything
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(base(inputs)))
    optimizer = make_optimizer(model)

shapes = {tuple(v.shape) for v in model.trainable_variables}
slots = [v for v in optimizer_variables(optimizer) if tuple(v.shape) in shapes]
print("slots before the first step:", len(slots))

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))


def make_train_step(optimizer):  # a new tf.function for each optimizer
    @tf.function
    def train_step(batch):
        def replica_step(batch):
            x, y = batch
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return tf.distribute.get_replica_context().replica_id_in_sync_group
        return strategy.run(replica_step, args=(batch,))
    return train_step


for stage in ("head only", "fine-tuning"):
    if stage == "fine-tuning":
        base.trainable = True  # more trainable variables: a new optimizer, built in the scope again
        with strategy.scope():
            optimizer = make_optimizer(model)
    train_step = make_train_step(optimizer)
    for batch in dataset:
        ids = train_step(batch)

    replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
    shapes = {tuple(v.shape) for v in model.trainable_variables}
    slots = [tf_variable(v) for v in optimizer_variables(optimizer) if tuple(v.shape) in shapes]
    copies = [[c.numpy() for c in strategy.experimental_local_results(tf_variable(v))] for v in model.weights]
    identical = all(np.array_equal(c[0], other) for c in copies for other in c)
    print(stage + ":", len(model.trainable_variables), "trainable variables")
    print("  replica ids:", replica_ids)
    print("  slot types:", sorted(set(type(s).__name__ for s in slots)), "x", len(slots))
    print("  steps taken:", int(tf_variable(optimizer.iterations).numpy()))
    print("  copies of every weight identical after the steps:", identical)
    assert replica_ids == [0, 1, 2, 3] and int(tf_variable(optimizer.iterations).numpy()) == 4
    assert len(slots) == 2 * len(model.trainable_variables)  # Adam: m and v for each
    assert all(type(s).__name__ == "MirroredVariable" for s in slots)
    assert all(len(c) == 4 for c in copies) and identical
# --8<-- [end:example]
