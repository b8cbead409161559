# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import tensorflow as tf

# Diagnostic, not a fix: the same program as lazy_build_in_traced_step.py, with one change,
# the all-reduce. On 4 CPU devices the default is CollectiveAllReduce; here it is ReductionToOneDevice.
strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.ReductionToOneDevice())


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


with strategy.scope():  # model AND optimizer created in the scope, as the guides say
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
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
        # The optimizer has no slots yet: they are created lazily, during tracing, in replica context.
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return tf.distribute.get_replica_context().replica_id_in_sync_group
    return strategy.run(replica_step, args=(batch,))


for batch in dataset:
    ids = train_step(batch)

replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
kernel = model.trainable_variables[0]
opt_vars = optimizer.variables() if callable(optimizer.variables) else optimizer.variables
slots = [tf_variable(v) for v in opt_vars if tuple(v.shape) == tuple(kernel.shape)]
print("replica ids:", replica_ids)
print("kernel slots:", sorted(type(s).__name__ for s in slots))
assert replica_ids == [0, 1, 2, 3]
assert slots and all(type(s).__name__ == "MirroredVariable" for s in slots)
# --8<-- [end:example]
