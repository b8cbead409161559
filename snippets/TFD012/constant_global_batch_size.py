# /// tfdist
# [expect]
# default = { prints = "after the 2 epochs: copies of w equal: True; equal to the one-device result: False" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name
GLOBAL_BATCH = 8  # 2 examples on each of the 4 replicas; 13 examples make a last batch of 5
x = np.linspace(0.5, 1.5, 13, dtype="float32").reshape(13, 1)
dataset = tf.data.Dataset.from_tensor_slices((x, np.zeros_like(x))).batch(GLOBAL_BATCH)


def sgd():  # the same plain SGD step everywhere (TF 1.x: its own optimizer)
    if tf.__version__.startswith("1."):
        return tf.compat.v1.train.GradientDescentOptimizer(0.1)
    return tf.keras.optimizers.SGD(0.1)


mse = tf.keras.losses.MeanSquaredError(reduction="none")  # one loss per example

w_one, opt_one = tf.Variable(1.0), sgd()  # reference: each whole batch on one device
for _ in range(2):  # 2 epochs
    for xb, yb in dataset:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(mse(yb, xb * w_one))
        opt_one.apply_gradients([(tape.gradient(loss, w_one), w_one)])

with strategy.scope():
    w, optimizer = tf.Variable(1.0), sgd()


@tf.function
def distributed_step(xs, ys):
    def train_step(x, y):
        with tf.GradientTape() as tape:  # the size of a full batch, also for the last batch of 5
            loss = tf.nn.compute_average_loss(mse(y, x * w), global_batch_size=GLOBAL_BATCH)
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])  # sums the 4 replicas' gradients
        return tf.shape(y)[0]

    return run(train_step, args=(xs, ys))


shares = []
for _ in range(2):  # 2 epochs
    for xs, ys in strategy.experimental_distribute_dataset(dataset):
        shares.append([int(n) for n in strategy.experimental_local_results(distributed_step(xs, ys))])
copies = [float(v.numpy()) for v in strategy.experimental_local_results(w)]
print("examples per replica in each step:", shares)
print("w on one device: %.4f; on the replicas: %s" % (float(w_one.numpy()), [round(c, 4) for c in copies]))
print("after the 2 epochs: copies of w equal: %s; equal to the one-device result: %s"
      % (len(copies) == 4 and len(set(copies)) == 1, np.allclose(copies, float(w_one.numpy()), atol=1e-6)))
# --8<-- [end:example]
