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
    w, b = tf.Variable([[1.0], [1.0]]), tf.Variable([0.5])  # two weights of two shapes
    optimizer = tf.keras.optimizers.Adam(0.1)  # with slots
    if hasattr(optimizer, "build"):  # Keras 3 and the Keras 2.11+ optimizers: slots made here (TFD001)
        optimizer.build([w, b])
    if tf.__version__.startswith("1."):  # TF 1.x: its own plain optimizer (in a tf.function there, Keras's
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # fails, and so does its own Adam)
    print("in the scope:", tf.distribute.get_replica_context())  # None: a cross-replica context


@tf.function
def train_step(x, y):
    def replica_fn(x, y):  # a replica context: the gradient and apply_gradients belong here
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, [w, b])
        optimizer.apply_gradients(zip(grads, [w, b]))  # sums the 4 replicas' gradients, updates every copy
        return tf.distribute.get_replica_context().replica_id_in_sync_group

    return strategy.experimental_local_results(run(replica_fn, args=(x, y)))


features = tf.random.stateless_normal((16, 2), seed=(1, 2))
dataset = tf.data.Dataset.from_tensor_slices((features, tf.zeros((16, 1)))).batch(8)  # 2 global batches of 8
seen = set()
for epoch in range(2):
    for x, y in strategy.experimental_distribute_dataset(dataset):  # 2 examples on each replica
        seen.add(tuple(int(i) for i in train_step(x, y)))
copies = [[c.numpy().ravel().tolist() for c in strategy.experimental_local_results(v)] for v in (w, b)]
print("replica ids in every step:", sorted(seen))
print("copies of w and b equal on the 4 devices:", all(len(c) == 4 and c.count(c[0]) == 4 for c in copies))
assert seen == {(0, 1, 2, 3)} and all(len(c) == 4 and c.count(c[0]) == 4 for c in copies)
assert copies[0][0] != [1.0, 1.0] and copies[1][0] != [0.5]  # both trained
# --8<-- [end:example]
