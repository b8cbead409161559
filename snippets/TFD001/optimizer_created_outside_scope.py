# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Mixing different tf\\.distribute\\.Strategy objects" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
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
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))

optimizer = tf.keras.optimizers.Adam(0.01)  # created OUTSIDE strategy.scope()

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))


@tf.function
def train_step(batch):
    def replica_step(batch):
        x, y = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))  # first call: slots are created here
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return strategy.run(replica_step, args=(batch,))


for batch in dataset:
    ids = train_step(batch)

replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
kernel = model.trainable_variables[0]
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
print("replica ids:", replica_ids)
print("kernel:", type(tf_variable(kernel)).__name__)
print("iterations counter:", type(tf_variable(optimizer.iterations)).__name__)
print("kernel slots:", sorted(type(s).__name__ for s in slots))
copies = [c.numpy() for c in strategy.experimental_local_results(tf_variable(kernel))]
identical = all(np.array_equal(copies[0], c) for c in copies)
print("steps taken:", int(tf_variable(optimizer.iterations).numpy()))
print("kernel copies identical after the steps:", identical)
assert replica_ids == [0, 1, 2, 3]
assert slots and all(type(s).__name__ == "MirroredVariable" for s in slots)
assert len(copies) == 4 and identical
# --8<-- [end:example]
