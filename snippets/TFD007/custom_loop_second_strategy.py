# /// tfdist
# [expect]
# default = { raises = "RuntimeError", match = "Mixing different tf\\.distribute\\.Strategy objects: <[^>]*MirroredStrategy[^>]*> is not <[^>]*MirroredStrategy" }
# "tf2.5" = { raises = "ValueError", match = "`colocate_vars_with` must only be passed a variable created in this tf\\.distribute\\.Strategy\\.scope\\(\\), not MirroredVariable" }
# "tf2.4" = { raises = "ValueError", match = "`colocate_vars_with` must only be passed a variable created in this tf\\.distribute\\.Strategy\\.scope\\(\\), not MirroredVariable" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() counts GPUs only (1 replica here)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))


def train(strategy, model, optimizer):
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))

    @tf.function
    def train_step(batch):
        def replica_step(batch):
            x, y = batch
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / 8  # mean over the global batch
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return tf.distribute.get_replica_context().replica_id_in_sync_group
        return strategy.run(replica_step, args=(batch,))

    for batch in dataset:
        ids = train_step(batch)
    return [int(i) for i in strategy.experimental_local_results(ids)]


# Stage 1: training
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    optimizer = tf.keras.optimizers.Adam(0.01)
    if hasattr(optimizer, "build"):  # its variables created here, in the scope (TFD001)
        optimizer.build(model.trainable_variables)
print("stage 1, replica ids:", train(strategy, model, optimizer))

# Stage 2: the same model and optimizer, trained with a new strategy
strategy = tf.distribute.MirroredStrategy()
print("stage 2, replica ids:", train(strategy, model, optimizer))
# --8<-- [end:example]
