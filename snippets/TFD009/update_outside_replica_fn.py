# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: the runner sets up the 4 devices before the snippet can enable eager execution, and tf.keras then creates the model's weights as graph variables, which no eager tf.function can use" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name

def make_model():
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, activation="tanh")(inputs)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(hidden))


with strategy.scope():
    model = make_model()
    optimizer = tf.keras.optimizers.Adam(0.01)  # with slots, as accumulation optimizers usually are
    if hasattr(optimizer, "build"):  # its variables created here, in the scope (TFD001)
        optimizer.build(model.trainable_variables)
    # Gradient accumulation: each replica sums its own gradients here between two updates.
    sums = [tf.Variable(tf.zeros(v.shape), trainable=False, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM) for v in model.trainable_variables]
start = model.get_weights()  # to check the result against one device

features = tf.random.stateless_normal((32, 3), seed=(1, 2))  # 4 steps of 8 examples
labels = tf.random.stateless_normal((32, 2), seed=(3, 4))
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, labels)).batch(8))


@tf.function
def accumulate(batch):  # every step: no synchronization point
    def replica_step(batch):
        x, y = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 8  # mean over the global batch
        for s, g in zip(sums, tape.gradient(loss, model.trainable_variables)):
            s.assign_add(g)
    run(replica_step, args=(batch,))


@tf.function
def update():  # every 2nd step: a strategy.run of its own, no condition inside it
    def replica_update():
        optimizer.apply_gradients(zip([s / 2 for s in sums], model.trainable_variables))
        for s in sums:
            s.assign(tf.zeros(s.shape))
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return run(replica_update)


for step, batch in enumerate(dataset, 1):
    accumulate(batch)
    if step % 2 == 0:  # the condition, in Python, outside strategy.run
        ids = update()

# The same 2 updates on one device, outside the strategy: each with the mean gradient of 16 examples.
one = make_model()
one.set_weights(start)
one_optimizer = tf.keras.optimizers.Adam(0.01)
for x, y in zip(np.split(features.numpy(), 2), np.split(labels.numpy(), 2)):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.reduce_sum(tf.square(one(x) - y), axis=1))
    one_optimizer.apply_gradients(zip(tape.gradient(loss, one.trainable_variables), one.trainable_variables))
replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
same = all(np.allclose(a, b, atol=1e-5) for a, b in zip(model.get_weights(), one.get_weights()))
print("replica ids:", replica_ids)
print("optimizer steps:", int(optimizer.iterations.numpy()))
print("every weight as on one device:", same)
assert replica_ids == [0, 1, 2, 3] and int(optimizer.iterations.numpy()) == 2 and same
# --8<-- [end:example]
