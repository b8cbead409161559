# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Please use `tf\\.keras\\.losses\\.Reduction\\.SUM` or `tf\\.keras\\.losses\\.Reduction\\.NONE` for loss reduction when losses are used with `tf\\.distribute\\.Strategy`" }
# "tf2.21-keras3" = "passes"
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
GLOBAL_BATCH = 8

with strategy.scope():
    w = tf.Variable(1.0)
    mse = tf.keras.losses.MeanSquaredError()  # the default reduction


@tf.function
def train_step(x, y):
    def replica_fn(x, y):
        with tf.GradientTape() as tape:
            loss = mse(y, x * w)
        grad = tape.gradient(loss, w)
        return tf.distribute.get_replica_context().all_reduce("sum", grad)  # as apply_gradients does

    return strategy.experimental_local_results(run(replica_fn, args=(x, y)))


dataset = tf.data.Dataset.from_tensors((tf.ones((GLOBAL_BATCH, 1)), tf.zeros((GLOBAL_BATCH, 1))))
for x, y in strategy.experimental_distribute_dataset(dataset):
    grads = [float(g) for g in train_step(x, y)]
print("summed gradient on each replica:", grads)
assert grads == [2.0] * 4  # the gradient of the mean over all 8 examples, as on one device
# --8<-- [end:example]
