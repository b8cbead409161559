# /// tfdist
# [expect]
# default = { raises = "RuntimeError", match = "`merge_call` called while defining a new graph or a tf\\.function" }
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
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    optimizer = tf.keras.optimizers.SGD(0.1)
    if hasattr(optimizer, "build"):  # its variables created here, in the scope (TFD001)
        optimizer.build(model.trainable_variables)
    # Gradient accumulation: each replica sums its own gradients here between two updates.
    sums = [tf.Variable(tf.zeros(v.shape), trainable=False, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM) for v in model.trainable_variables]

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))


@tf.function
def train_step(batch, update_now):
    def replica_step(batch):
        x, y = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 8  # mean over the global batch
        for s, g in zip(sums, tape.gradient(loss, model.trainable_variables)):
            s.assign_add(g)

        def update():  # every 2nd step: apply the mean of the 2 accumulated gradients
            optimizer.apply_gradients(zip([s / 2 for s in sums], model.trainable_variables))
            return tf.group([s.assign(tf.zeros(s.shape)) for s in sums])

        tf.cond(update_now, update, tf.no_op)  # the synchronization point inside a branch
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return run(replica_step, args=(batch,))


for step, batch in enumerate(dataset, 1):
    ids = train_step(batch, tf.constant(step % 2 == 0))
print("replica ids:", [int(i) for i in strategy.experimental_local_results(ids)])
# --8<-- [end:example]
