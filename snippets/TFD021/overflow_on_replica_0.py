# /// tfdist
# [expect]
# default = "passes"
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

# One global batch of 8 examples: replica r gets examples 2r and 2r+1. Only replica 0's examples
# are large: the loss stays finite, but multiplied by the loss scale it overflows, and so do replica 0's
# gradients (inf). The step must be skipped.
x = np.ones((8, 2), "float32")
x[0:2] = 1e18
history = model.fit(x, np.zeros((8, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)


def local_copies(variable):
    variable = variable.value if isinstance(getattr(variable, "value", None), tf.Variable) else variable
    return [copy.numpy().ravel().tolist() for copy in strategy.experimental_local_results(variable)]


scale = optimizer.dynamic_scale if hasattr(optimizer, "dynamic_scale") else optimizer.loss_scale  # Keras 3 / 2
print("replicas:", strategy.num_replicas_in_sync)
print("loss of the step is finite:", bool(np.isfinite(history.history["loss"][0])))
print("kernel on each replica:", local_copies(model.layers[0].kernel))
print("loss scale:", float(scale.numpy()))
assert all(copy == [1.0, 1.0] for copy in local_copies(model.layers[0].kernel)), "the step was applied"
assert float(scale.numpy()) == 2.0 ** 14, "the loss scale was not lowered"
# --8<-- [end:example]
