# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
REPLICAS = strategy.num_replicas_in_sync
GLOBAL_BATCH = 4 * REPLICAS  # a multiple of the replicas: every full batch splits evenly


def batches(x):  # the first batch splits evenly even when x holds less than one global batch
    size = min(GLOBAL_BATCH, len(x) - len(x) % REPLICAS)  # 10 examples: batches of 8, then 2
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(size)


def replica_id(y_true, y_pred):  # its mean is (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


x_train = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)  # 4 full batches
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=[replica_id])

for n in (10, 7, 30):  # validation sets smaller than a batch, and one with a short last batch
    x_val = np.linspace(1, 2, 3 * n, dtype="float32").reshape(n, 3)
    history = model.fit(batches(x_train), validation_data=batches(x_val), epochs=1, verbose=0)
    w, b = model.layers[-1].get_weights()
    expected = np.mean((x_val @ w + b - x_val.sum(axis=1, keepdims=True)) ** 2)  # every example counted once
    loss = model.evaluate(batches(x_val), verbose=0, return_dict=True)["loss"]
    print(n, "validation examples: evaluate's loss is the loss over all of them:", bool(np.isclose(loss, expected, rtol=1e-4)))
    assert len(history.history["val_loss"]) == 1 and history.history["replica_id"] == [1.5]
    assert np.isclose(loss, expected, rtol=1e-4)
# --8<-- [end:example]
