# /// tfdist
# [expect]
# default = "passes"
# "tf2.4" = { not-applicable = "tf.function has no jit_compile argument before TF 2.5 (it was called experimental_compile)" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.function(jit_compile=...) and no Strategy.run" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def train(dim, steps):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Embedding(10, dim, embeddings_initializer="ones")])
        model.build((None, 2))
        optimizer = tf.keras.optimizers.SGD(0.5)
    table = model.trainable_variables[0]

    @tf.function(jit_compile=True)  # compiled: pure math on tensors, no variable inside
    def loss_and_grad(ids, values):
        with tf.GradientTape() as tape:
            tape.watch(values)
            loss = tf.reduce_sum(tf.gather(values, ids)) / 8.0  # 8 lookups in the global batch
        return loss, tape.gradient(loss, values)

    @tf.function
    def train_step():
        def replica_fn():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            ids = tf.stack([rid, rid + 1])  # replica r looks up rows r and r+1
            loss, grad = loss_and_grad(ids, tf.convert_to_tensor(table))  # read outside XLA
            optimizer.apply_gradients([(grad, table)])  # all-reduce outside XLA
            return rid, tf.convert_to_tensor(table)
        return strategy.run(replica_fn)

    for _ in range(steps):
        rids, copies = train_step()
    rids = [int(r) for r in strategy.experimental_local_results(rids)]
    copies = [c.numpy() for c in strategy.experimental_local_results(copies)]
    assert rids == [0, 1, 2, 3], rids  # all 4 replicas ran
    counts = np.array([1, 2, 2, 2, 1, 0, 0, 0, 0, 0], np.float32)[:, None]
    expected = np.ones((10, dim), np.float32) - steps * 0.5 * counts / 8.0
    for copy in copies:  # every replica's copy got the summed update
        np.testing.assert_allclose(copy, expected, rtol=1e-6)
    print(f"dim {dim}, {steps} step(s): 4 copies, row 1 = {copies[0][1].tolist()}")


train(2, 1)
train(3, 2)  # another shape and a second step
# --8<-- [end:example]
