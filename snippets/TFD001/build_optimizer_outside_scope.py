# /// tfdist
# [expect]
# default = { prints = "kernel slots: \\['ResourceVariable', 'ResourceVariable'\\][\\s\\S]*kernel copies identical: False\\ncopies differ by more than 0\\.001: True" }
# "tf2.21-keras3" = { raises = "RuntimeError", match = "Need to be inside \"with strategy\\.scope\\(\\)\" for" }
# "tf2.5" = { raises = "AttributeError", match = "'Adam' object has no attribute 'build'" }
# "tf2.4" = { raises = "AttributeError", match = "'Adam' object has no attribute 'build'" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


with strategy.scope():  # model and optimizer created in the scope
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    optimizer = tf.keras.optimizers.Adam(0.01)

optimizer.build(model.trainable_variables)  # but its slots are built here, after the scope has ended

kernel = tf_variable(model.trainable_variables[0])
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
print("kernel:", type(kernel).__name__)
print("kernel slots:", sorted(type(s).__name__ for s in slots))

features = tf.random.stateless_normal((32, 3), seed=(1, 2))
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
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return strategy.run(replica_step, args=(batch,))


for batch in dataset:
    ids = train_step(batch)

replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
spread = max(float(np.max(np.abs(c - copies[0]))) for c in copies)
print("replica ids:", replica_ids)
print("kernel copies on", len({c.device for c in strategy.experimental_local_results(kernel)}), "devices")
print("kernel copies identical:", spread == 0.0)
print("copies differ by more than 0.001:", spread > 1e-3)
assert replica_ids == [0, 1, 2, 3]
# --8<-- [end:example]
