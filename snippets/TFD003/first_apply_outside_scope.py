# /// tfdist
# [expect]
# default = { prints = "kernel copies equal: False\\n.*\\nsame prediction on every replica: False" }
# "tf2.4" = { raises = "ValueError", match = "Trying to create optimizer slot variable under the scope for tf\\.distribute\\.Strategy \\(<tensorflow\\.python\\.distribute\\.distribute_lib\\._DefaultDistributionStrategy" }
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Need to be inside \"with strategy\\.scope\\(\\)\" for" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


with strategy.scope():  # model and optimizer both created in the scope
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
    optimizer = tf.keras.optimizers.Adam(0.01)

x = tf.ones((8, 3))
y = tf.zeros((8, 2))

# The first apply_gradients runs with no strategy active: outside the scope, not in strategy.run.
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))

kernel = tf_variable(model.trainable_variables[0])
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
copies = [float(c.numpy()[0, 0]) for c in strategy.experimental_local_results(kernel)]
print("kernel:", type(kernel).__name__)
print("kernel slots:", sorted(type(s).__name__ for s in slots))
print("kernel[0, 0] on each replica:", [round(c, 4) for c in copies])
print("kernel copies equal:", all(abs(c - copies[0]) < 1e-6 for c in copies))

# Then the model is used on the 4 replicas, each given the same input.
predictions = strategy.run(lambda: model(tf.ones((1, 3))))
per_replica = [round(float(p[0, 0]), 4) for p in strategy.experimental_local_results(predictions)]
print("prediction for the same input on each replica:", per_replica)
print("same prediction on every replica:", len(set(per_replica)) == 1)
assert len(per_replica) == 4
# --8<-- [end:example]
