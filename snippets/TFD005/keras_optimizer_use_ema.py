# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys, so after the model of custom_loop_ema_shared.py above this one's differently sized gradients stop with `Shape mismatch in the collective instance 100` (tensorflow/tensorflow#62790)"
# [expect]
# default = "passes"
# "tf2.4" = { raises = "TypeError", match = "Unexpected keyword argument passed to optimizer: use_ema" }
# "tf2.5" = { raises = "TypeError", match = "Unexpected keyword argument passed to optimizer: use_ema" }
# "tf1.15" = { not-applicable = "TF 1.15 Keras optimizers have no use_ema argument (SGD(use_ema=True) raises TypeError there, as on 2.4 and 2.5)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def variable_kind(v):
    # Keras 3 variables wrap a tf.Variable; Keras 2 variables are tf.Variables
    return type(v if isinstance(v, tf.Variable) else v.value).__name__


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(1,)),
        tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones"),
    ])
    # mean absolute error against targets of -100: with inputs of 1.0 the kernel's gradient
    # is 1.0 at every step, so plain SGD moves it 1.0 -> 0.9 -> 0.8 -> 0.7 over 3 steps
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.5)
    model.compile(optimizer=optimizer, loss="mae", metrics=[replica_id])

x = np.ones((24, 1), np.float32)
averages = None
# Keras 3 seeds the average with the first step's weights: 0.9 -> 0.85 -> 0.775;
# Keras 2 optimizers seed it with the initial weights: 1.0 -> 0.95 -> 0.875 -> 0.7875.
# The second fit starts from those averages and keeps averaging (0.5625 and 0.575).
for run, expected in (("first fit", (0.775, 0.7875)), ("second fit", (0.5625, 0.575))):
    history = model.fit(x, -100.0 * x, batch_size=8, epochs=1, shuffle=False, verbose=0)  # 3 steps of 8
    averages = optimizer._model_variables_moving_average  # private, but the only handle on them
    average = averages[0] if isinstance(averages[0], tf.Variable) else averages[0].value  # Keras 3: the tf.Variable
    copies = [float(np.asarray(c)[0, 0]) for c in strategy.experimental_local_results(average)]
    kernel = float(np.asarray(model.layers[0].kernel)[0, 0])
    print(run + ": average variables", [v.name for v in averages], sorted({variable_kind(v) for v in averages}))
    print("  copies of the kernel's average equal on the 4 devices:", len(copies) == 4 and len(set(copies)) == 1)
    print("  mean replica id seen by the metric:", history.history["replica_id"][0])
    print("  kernel after fit (fit copies the averages into the model): %.4f" % kernel)
    assert sorted({variable_kind(v) for v in averages}) == ["MirroredVariable"]
    assert len(copies) == 4 and len(set(copies)) == 1 and history.history["replica_id"][0] == 1.5
    assert min(abs(kernel - e) for e in expected) < 1e-5, kernel
# --8<-- [end:example]
