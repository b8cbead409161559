# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # MirroredStrategy() takes every GPU, or else the CPU's devices
if tf.__version__.startswith("2.0."):  # its MirroredStrategy() counts GPUs only:
    config = tf.config.experimental  # name the machine's devices, its GPUs if it has any
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]
strategy = tf.distribute.MirroredStrategy(devices)


def replica_id(y_true, y_pred):  # its mean is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


def batches(*arrays):  # the whole input as one batched dataset: Keras splits each batch over the replicas
    return tf.data.Dataset.from_tensor_slices(arrays if len(arrays) > 1 else arrays[0]).batch(16)


x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)  # 64 examples: 4 batches of 16 to train on
y = np.concatenate([x.sum(axis=1, keepdims=True), x.mean(axis=1, keepdims=True)], axis=1)

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])
# repeated, with the steps of one pass: on TF 2.0, fit that reads to the end of the data stops at random
history = model.fit(batches(x, y).repeat(), steps_per_epoch=4, epochs=2, verbose=0)  # (TFD044)
kernel = model.layers[-1].kernel
if isinstance(getattr(kernel, "value", None), tf.Variable):  # Keras 3 wraps the tf.Variable: .value is it
    kernel = kernel.value
print("kernel:", type(kernel).__name__, "on", len(strategy.experimental_local_results(kernel)), "devices")
print("mean replica id per epoch:", history.history["replica_id"])
assert len(strategy.experimental_local_results(kernel)) == 4
assert history.history["replica_id"] == [1.5, 1.5]

w, b = model.layers[-1].get_weights()
for n in (50, 49, 64):  # 3 batches of 16, then 2; then 1 (3 replicas get nothing); then no partial batch
    predictions = model.predict(batches(x[:n]), verbose=0)
    print(n, "examples ->", predictions.shape)
    assert predictions.shape == (n, 2)
    assert np.allclose(predictions, x[:n] @ w + b, atol=1e-5)  # the same as one device computes, in order
# --8<-- [end:example]
