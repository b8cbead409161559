# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 model.fit under a 4-worker MultiWorkerMirroredStrategy fails first with 'Attempt to convert a value (PerReplica...)' (keras-team/keras#20585)" }
# "tf2.5" = { not-applicable = "Model.compile has no jit_compile argument in this Keras" }
# "tf2.4" = { not-applicable = "Model.compile has no jit_compile argument in this Keras" }
# "tf1.15" = { not-applicable = "Model.compile has no jit_compile argument in TF 1.15" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input((2,), dtype="int32"),
        tf.keras.layers.Embedding(10, 1, embeddings_initializer="ones"),
        tf.keras.layers.Flatten(),
    ])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="mse", jit_compile=False)

x = np.array([[i, i + 1] for i in range(8)], np.int32)
y = np.zeros((8, 2), np.float32)
expected = np.ones(10, np.float32)


def expect_fit(batch_size, epochs):
    # plain SGD on the mean squared output of each global batch, in order
    for _ in range(epochs):
        for start in range(0, 8, batch_size):
            counts = np.bincount(x[start:start + batch_size].ravel(), minlength=10)
            expected[:] -= 0.5 * counts * expected / batch_size


for batch_size, epochs in [(8, 2), (4, 1)]:  # a second fit with another batch size
    model.fit(x, y, batch_size=batch_size, epochs=epochs, shuffle=False, verbose=0)
    expect_fit(batch_size, epochs)
    table = model.trainable_variables[0].numpy()[:, 0]  # this worker's copy
    np.testing.assert_allclose(table, expected, rtol=1e-5)
    print(f"batch {batch_size}: rows 0-2 = {[round(float(v), 4) for v in table[:3]]}")


@tf.function
def replicas_that_ran():
    ctx = tf.distribute.get_replica_context()
    return ctx.all_reduce("sum", tf.one_hot(ctx.replica_id_in_sync_group, 4))


seen = strategy.experimental_local_results(strategy.run(replicas_that_ran))[0].numpy()
assert seen.tolist() == [1.0, 1.0, 1.0, 1.0], seen
# --8<-- [end:example]
