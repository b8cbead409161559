# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: the runner sets up the 4 devices before the snippet can enable eager execution, and tf.keras then creates the model's weights as graph variables, which no eager tf.function can use" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, activation="tanh")(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(hidden))
    optimizer = tf.keras.optimizers.Adam(0.01)  # with slots
    if hasattr(optimizer, "build"):  # its variables created here, in the scope (TFD001)
        optimizer.build(model.trainable_variables)

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))


@tf.function
def train_step(batch):
    def replica_step(batch):
        x, y = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 8  # mean over the global batch
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))  # no tf.function of its own
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return run(replica_step, args=(batch,))


for batch in dataset:
    ids = train_step(batch)
replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
weights = [v.value if isinstance(getattr(v, "value", None), tf.Variable) else v  # Keras 3: the tf.Variable
           for v in model.trainable_variables]
copies = [[c.numpy() for c in strategy.experimental_local_results(v)] for v in weights]
identical = all(len(c) == 4 and all((other == c[0]).all() for other in c) for c in copies)
print("replica ids:", replica_ids)
print("optimizer steps:", int(optimizer.iterations.numpy()))
print("copies of all %d weights identical:" % len(weights), identical)
assert replica_ids == [0, 1, 2, 3] and int(optimizer.iterations.numpy()) == 4
assert len(weights) == 4 and identical
# --8<-- [end:example]
