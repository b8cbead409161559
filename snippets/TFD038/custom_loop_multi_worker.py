# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no tf.distribute.MultiWorkerMirroredStrategy or Strategy.run" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first: before any op
GLOBAL_BATCH = 8
with strategy.scope():
    model = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="zeros")]
    )
    optimizer = tf.keras.optimizers.SGD(0.05)

rng = np.random.RandomState(0)  # the same data on every worker, and for the check below
x = rng.uniform(-1, 1, (36, 3)).astype("float32")  # 36: the last step has 1 example a replica
y = x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3


def dataset_fn(context):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(context.num_input_pipelines, context.input_pipeline_id)
    return ds.batch(context.get_per_replica_batch_size(GLOBAL_BATCH))  # 2 a replica


dataset = strategy.distribute_datasets_from_function(dataset_fn)


@tf.function
def train_step(batch):
    def step(features, target):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(model(features, training=True) - target), axis=-1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        ran = tf.one_hot(tf.distribute.get_replica_context().replica_id_in_sync_group, 4)
        return loss, ran

    loss, ran = strategy.run(step, args=batch)
    # Reduce what you return yourself: a scalar per replica, so axis=None.
    return strategy.reduce("SUM", loss, axis=None), strategy.reduce("SUM", ran, axis=None)


for epoch in range(2):  # a second epoch, through the same compiled step
    losses, ran = [], np.zeros(4)
    for batch in dataset:
        loss, r = train_step(batch)
        losses.append(float(loss))
        ran += r.numpy()
    print("epoch", epoch, "steps:", len(losses), "replica steps:", ran.tolist())
    assert ran.tolist() == [5.0] * 4  # all 4 replicas ran every step

# The same steps on one device, in NumPy: step k of an epoch takes examples 8k to 8k+7.
w, b = np.zeros((3, 1)), 0.0
for epoch in range(2):
    for k in range(0, 36, GLOBAL_BATCH):
        xb, yb = x[k:k + GLOBAL_BATCH], y[k:k + GLOBAL_BATCH]
        residual = xb @ w + b - yb
        w, b = w - 0.05 * 2 * xb.T @ residual / GLOBAL_BATCH, b - 0.05 * 2 * residual.sum() / GLOBAL_BATCH
kernel, bias = [v.numpy() for v in model.layers[0].weights]
print("kernel matches one device:", np.allclose(kernel, w, atol=1e-5))
assert np.allclose(kernel, w, atol=1e-5) and np.allclose(bias, b, atol=1e-5)
# --8<-- [end:example]
