# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf2.4" = { not-applicable = "tf.function has no jit_compile argument before TF 2.5 (it was called experimental_compile)" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.function(jit_compile=...) and no Strategy.run" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def train(dim, steps):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Embedding(10, dim, embeddings_initializer="ones")])
        model.build((None, 2))
        optimizer = tf.keras.optimizers.SGD(0.5)

    @tf.function(jit_compile=True)  # XLA compiles the per-replica math only
    def loss_and_grads(ids):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(ids)) / 8.0  # 8 lookups in the global batch
        return loss, tape.gradient(loss, model.trainable_variables)

    @tf.function
    def train_step():
        def replica_fn():
            ctx = tf.distribute.get_replica_context()
            rid = ctx.replica_id_in_sync_group
            loss, grads = loss_and_grads(tf.reshape(tf.stack([rid, rid + 1]), [1, 2]))
            # the all-reduce runs here, outside the compiled function
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return ctx.all_reduce("sum", tf.one_hot(rid, 4))
        return strategy.run(replica_fn)

    for _ in range(steps):
        seen = strategy.experimental_local_results(train_step())[0].numpy()
    assert seen.tolist() == [1.0, 1.0, 1.0, 1.0], seen  # all 4 replicas ran the step

    # replica r looked up rows r and r+1: rows 1-3 twice per step, rows 0 and 4 once
    counts = np.array([1, 2, 2, 2, 1, 0, 0, 0, 0, 0], np.float32)[:, None]
    expected = np.ones((10, dim), np.float32) - steps * 0.5 * counts / 8.0
    table = model.trainable_variables[0].numpy()  # this worker's copy
    np.testing.assert_allclose(table, expected, rtol=1e-6)
    print(f"dim {dim}, {steps} step(s): row 1 = {table[1].tolist()}")


train(2, 1)
train(3, 2)  # another shape and a second step
# --8<-- [end:example]
