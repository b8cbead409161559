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


with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
    optimizer = tf.keras.optimizers.Adam(0.01)
    if hasattr(optimizer, "build"):  # Keras 2.11+ and Keras 3: create the slots here, in the scope
        optimizer.build(model.trainable_variables)

features = tf.random.stateless_normal((20, 3), seed=(1, 2))  # batches of 8, 8 and 4
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, tf.zeros((20, 2)))).batch(8))


@tf.function  # traced on the first call; traced again for the smaller last batch
def train_step(batch):
    def replica_step(batch):
        x, y = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return tf.distribute.get_replica_context().replica_id_in_sync_group

    return strategy.run(replica_step, args=(batch,))  # every update goes through strategy.run


seen = set()
for epoch in range(2):
    for batch in dataset:
        ids = train_step(batch)
        seen.add(tuple(int(i) for i in strategy.experimental_local_results(ids)))

kernel = tf_variable(model.trainable_variables[0])
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
copies = [float(c.numpy()[0, 0]) for c in strategy.experimental_local_results(kernel)]
print("replica ids in every step:", sorted(seen), "steps taken:", int(tf_variable(optimizer.iterations).numpy()))
print("kernel slots:", sorted(type(s).__name__ for s in slots))
print("kernel[0, 0] on each replica:", [round(c, 4) for c in copies])
assert seen == {(0, 1, 2, 3)} and int(tf_variable(optimizer.iterations).numpy()) == 6
assert slots and all(type(s).__name__ == "MirroredVariable" for s in slots)
assert len(copies) == 4 and all(abs(c - copies[0]) < 1e-6 for c in copies) and copies[0] < 1.0
# --8<-- [end:example]
