# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys (TFD016), and the cell above all-reduced gradients of other shapes"
# [expect]
# default = { prints = '18 examples, "mse": w = 1\.9887, last step \+0\.2792 \(one device: 2\.2679, last step \+0\.5584\)' }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: name the devices, because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)


def data(n):  # n examples of y = 3x; batches of 8 (2 on each replica), the last one partial
    x = np.linspace(0.5, 1.5, n, dtype="float32").reshape(n, 1)
    return x, 3.0 * x


def w_after_one_epoch(n, loss, scope):  # w at the end, and how far the last step moved it
    with scope:
        dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones", input_shape=(1,))
        model = tf.keras.Sequential([dense])  # w = 1.0, plain SGD steps of 0.1
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss=loss())
    ws = [1.0]  # w after each step
    record = tf.keras.callbacks.LambdaCallback(on_batch_end=lambda b, logs: ws.append(float(model.get_weights()[0][0, 0])))
    x, y = data(n)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[record])
    return "%.4f, last step %+.4f" % (ws[-1], ws[-1] - ws[-2])


losses = {
    '"mse"': lambda: "mse",
    'MeanSquaredError(reduction="sum")': lambda: tf.keras.losses.MeanSquaredError(reduction="sum"),
}
for n in (16, 18):  # 2 full batches; 2 full batches and one of 2 examples
    for name, loss in losses.items():
        distributed = w_after_one_epoch(n, loss, strategy.scope())
        one_device = w_after_one_epoch(n, loss, tf.distribute.get_strategy().scope())  # the default strategy
        print("%d examples, %s: w = %s (one device: %s)" % (n, name, distributed, one_device))
if tf.executing_eagerly():  # how the replicas share the last batch of 18 examples (TF 1.x: graph mode, skipped)
    last = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(data(18)[0][16:]).batch(8))
    shares = strategy.experimental_local_results(next(iter(last)))
    print("the last batch of 2, examples per replica:", [int(t.shape[0]) for t in shares])
# --8<-- [end:example]
