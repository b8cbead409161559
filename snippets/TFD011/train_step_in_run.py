# /// tfdist
# [expect]
# default = "passes"
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
    w = tf.Variable([[1.0], [1.0]])
    optimizer = tf.keras.optimizers.SGD(0.1)
    if tf.__version__.startswith("1."):  # TF 1.x: its own optimizer (Keras's fails in a tf.function there)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    print("in the scope:", tf.distribute.get_replica_context())  # None: a cross-replica context


@tf.function
def train_step(x, y):
    def replica_fn(x, y):  # a replica context: the gradient and apply_gradients belong here
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(tf.matmul(x, w) - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(grads, [w]))  # sums the 4 replicas' gradients, updates every copy
        return tf.distribute.get_replica_context().replica_id_in_sync_group

    return strategy.experimental_local_results(run(replica_fn, args=(x, y)))


dataset = tf.data.Dataset.from_tensors((tf.ones((8, 2)), tf.zeros((8, 1))))  # one global batch of 8
for x, y in strategy.experimental_distribute_dataset(dataset):  # 2 examples on each replica
    ids = [int(i) for i in train_step(x, y)]
copies = [v.numpy().ravel().tolist() for v in strategy.experimental_local_results(w)]
print("replica ids:", ids)
print("copies of w:", copies)
assert ids == [0, 1, 2, 3] and len(copies) == 4 and all(c == copies[0] != [1.0, 1.0] for c in copies)
# --8<-- [end:example]
