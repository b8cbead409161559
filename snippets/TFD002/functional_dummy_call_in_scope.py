# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "`colocate_vars_with` must only be passed a variable created in this tf\\.distribute\\.Strategy\\.scope\\(\\)" }
# "tf2.4" = { raises = "ValueError", match = "Trying to create optimizer slot variable under the scope for tf\\.distribute\\.Strategy" }
# "tf2.5" = { raises = "ValueError", match = "Trying to create optimizer slot variable under the scope for tf\\.distribute\\.Strategy" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

# The functional model creates its weights right here, outside any strategy scope.
inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3 wrapper
print("kernel before training:", type(kernel).__name__)

with strategy.scope():
    model(tf.zeros((1, 3)))  # "warm-up" call inside the scope: the weights already exist, none are created
kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel
print("kernel after a call inside the scope:", type(kernel).__name__)

with strategy.scope():
    optimizer = tf.keras.optimizers.Adam(0.01)

features = tf.ones((8, 3))
labels = tf.zeros((8, 2))
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
print("replica ids:", [int(i) for i in strategy.experimental_local_results(ids)])
# --8<-- [end:example]
