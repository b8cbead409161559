# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy fails first with 'Attempt to convert a value (PerReplica...)' (keras-team/keras#20585)" }
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-worker runner" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first, before the model

with strategy.scope():  # the model, its variables and the optimizer's slots
    model = tf.keras.Sequential([
        tf.keras.Input((3,)),
        tf.keras.layers.Dense(4, activation="relu", kernel_initializer="ones"),
        tf.keras.layers.Dense(1, kernel_initializer="zeros"),
    ])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01, momentum=0.5), loss="mse")

x = np.linspace(0.0, 1.0, 96, dtype="float32").reshape(32, 3)
y = x.sum(axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # global batch of 8

first = model.fit(dataset, epochs=2, verbose=0).history["loss"]
second = model.fit(dataset, epochs=2, verbose=0).history["loss"]  # a second fit goes on training
losses = [round(v, 4) for v in first + second]
print("loss per epoch:", losses)
assert losses == sorted(losses, reverse=True), losses  # it trained, through both fits


@tf.function
def compare():
    flat = tf.concat([tf.reshape(w, [-1]) for w in model.weights], axis=0)  # this worker's weights
    ctx = tf.distribute.get_replica_context()
    total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, flat)  # summed over the 4 workers
    return flat, total, ctx.replica_id_in_sync_group


flat, total, rid = strategy.run(compare)
ids = strategy.reduce(tf.distribute.ReduceOp.SUM, rid, axis=None)
assert strategy.num_replicas_in_sync == 4
assert int(ids) == 0 + 1 + 2 + 3, int(ids)  # all 4 replicas ran
# the sum over the workers is 4 times this worker's weights on every worker: all hold the same weights
np.testing.assert_allclose(total.numpy(), 4 * flat.numpy(), rtol=1e-6)
print("replicas:", strategy.num_replicas_in_sync, "same weights on every worker")
# --8<-- [end:example]
