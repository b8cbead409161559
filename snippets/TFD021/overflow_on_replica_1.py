# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys (TFD016), and each example of this page creates its own"
# [expect]
# default = "passes"
# "tf2.21-keras3" = { prints = "kernel on each replica: \\[\\[-inf, -inf\\], \\[-inf, -inf\\], \\[-inf, -inf\\], \\[-inf, -inf\\]\\]\\nloss scale: 32768\\.0" }
# "tf1.15" = { not-applicable = "TF 1.15 has tf.keras.mixed_precision.LossScaleOptimizer only under experimental, and its MirroredStrategy() counts GPUs only, so it does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)),
                                 tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))
    model.compile(optimizer=optimizer, loss="mse")

# One global batch of 8 examples: replica r gets examples 2r and 2r+1. Only replica 1's examples
# are large: the loss stays finite, but multiplied by the loss scale it overflows, and so do replica 1's
# gradients (inf). The step must be skipped.
x = np.ones((8, 2), "float32")
x[2:4] = 1e18
history = model.fit(x, np.zeros((8, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)


def local_copies(variable):
    variable = variable.value if isinstance(getattr(variable, "value", None), tf.Variable) else variable
    return [copy.numpy().ravel().tolist() for copy in strategy.experimental_local_results(variable)]


scale = optimizer.dynamic_scale if hasattr(optimizer, "dynamic_scale") else optimizer.loss_scale  # Keras 3 / 2
print("replicas:", strategy.num_replicas_in_sync)
print("loss of the step is finite:", bool(np.isfinite(history.history["loss"][0])))
print("kernel on each replica:", local_copies(model.layers[0].kernel))
print("loss scale:", float(scale.numpy()))
# --8<-- [end:example]
