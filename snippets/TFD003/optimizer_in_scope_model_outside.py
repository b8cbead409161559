# /// tfdist
# [expect]
# default = { raises = "AssertionError", match = "_distributed_apply_gradients_fn" }
# "tf2.4" = "passes"
# "tf2.5" = { raises = "ValueError", match = "Trying to create optimizer slot variable under the scope for tf\\.distribute\\.Strategy \\(<tensorflow\\.python\\.distribute\\.mirrored_strategy\\.MirroredStrategy" }
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Need to be inside \"with strategy\\.scope\\(\\)\" for" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))  # plain, single-device variables

with strategy.scope():
    optimizer = tf.keras.optimizers.Adam(0.01)  # ...but the optimizer is created in the scope

x = tf.ones((8, 3))
y = tf.zeros((8, 2))


@tf.function
def train_step(x, y):  # an ordinary, non-distributed step: no strategy.run, no scope
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for _ in range(3):
    train_step(x, y)

kernel = model.trainable_variables[0]
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
print("kernel:", type(tf_variable(kernel)).__name__)
print("kernel slots:", sorted(type(s).__name__ for s in slots))
print("steps taken:", int(tf_variable(optimizer.iterations).numpy()))
assert int(tf_variable(optimizer.iterations).numpy()) == 3

# Then the trained model is used on the 4 replicas: each one reads the single copy of the weights.
predictions, ids = strategy.run(
    lambda: (model(x[:1]), tf.distribute.get_replica_context().replica_id_in_sync_group))
replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
per_replica = [round(float(p[0, 0]), 4) for p in strategy.experimental_local_results(predictions)]
print("replica ids:", replica_ids)
print("same prediction on every replica:", len(set(per_replica)) == 1)
assert replica_ids == [0, 1, 2, 3] and len(set(per_replica)) == 1
# --8<-- [end:example]
