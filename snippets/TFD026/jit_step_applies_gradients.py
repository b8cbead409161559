# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "InvalidArgumentError", match = "No registered 'CollectiveGatherV2' OpKernel for XLA_CPU_JIT devices" }
# "tf2.4" = { not-applicable = "tf.function has no jit_compile argument before TF 2.5 (it was called experimental_compile)" }
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.function(jit_compile=...) and no Strategy.run" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Embedding(10, 2)])
    model.build((None, 2))
    optimizer = tf.keras.optimizers.SGD(0.5)


@tf.function(jit_compile=True)  # XLA compiles the whole replica step...
def replica_step():
    rid = tf.distribute.get_replica_context().replica_id_in_sync_group
    ids = tf.reshape(tf.stack([rid, rid + 1]), [1, 2])  # replica r looks up rows r and r+1
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(ids)) / 8.0  # 8 lookups in the global batch
    grads = tape.gradient(loss, model.trainable_variables)
    # ...including apply_gradients, which all-gathers the embedding's sparse gradient
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def train_step():
    return strategy.run(replica_step)


train_step()
# --8<-- [end:example]
