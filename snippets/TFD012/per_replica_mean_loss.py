# /// tfdist
# [expect]
# default = { prints = "w after one step: 0\\.2 \\(one device: 0\\.8\\)" }
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
GLOBAL_BATCH = 8  # 2 examples on each of the 4 replicas


def sgd():  # the same plain SGD step everywhere (TF 1.x: its own optimizer)
    if tf.__version__.startswith("1."):
        return tf.compat.v1.train.GradientDescentOptimizer(0.1)
    return tf.keras.optimizers.SGD(0.1)


def train_step(w, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x * w - y))  # the mean over the examples this call sees
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])


x, y = tf.ones((GLOBAL_BATCH, 1)), tf.zeros((GLOBAL_BATCH, 1))
w_one = tf.Variable(1.0)  # reference: the whole batch on one device
train_step(w_one, sgd(), x, y)

with strategy.scope():
    w = tf.Variable(1.0)
    optimizer = sgd()


@tf.function
def distributed_step(xs, ys):
    run(train_step, args=(w, optimizer, xs, ys))  # apply_gradients sums the 4 replicas' gradients


for xs, ys in strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors((x, y))):
    distributed_step(xs, ys)
copies = [round(float(v.numpy()), 4) for v in strategy.experimental_local_results(w)]
print("copies of w:", copies)
print("w after one step: %s (one device: %s)" % (copies[0], round(float(w_one.numpy()), 4)))
# --8<-- [end:example]
