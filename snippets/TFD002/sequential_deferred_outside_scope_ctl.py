# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { raises = "InvalidArgumentError", match = "You must feed a value for placeholder tensor" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

# A Sequential model without an input shape has no weights yet: they are created on its first call.
model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
print("built before training:", model.built)

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
replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3 wrapper
print("replica ids:", replica_ids)
print("kernel after training:", type(kernel).__name__)
assert replica_ids == [0, 1, 2, 3]
assert type(kernel).__name__ == "MirroredVariable"
# --8<-- [end:example]
