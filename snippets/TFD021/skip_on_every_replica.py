# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys (TFD016), and each example of this page creates its own"
# [expect]
# default = "passes"
# "tf2.21-tfkeras" = { not-applicable = "Keras 2 (tf-keras): its LossScaleOptimizer all-reduces the gradients before it decides, so every replica skips the step already (the failing example passes there); the apply() this fix overrides is Keras 3's" }
# "tf2.15" = { not-applicable = "Keras 2: its LossScaleOptimizer all-reduces the gradients before it decides, so every replica skips the step already (the failing example passes there); the apply() this fix overrides is Keras 3's" }
# "tf2.5" = { not-applicable = "Keras 2: its LossScaleOptimizer all-reduces the gradients before it decides, so every replica skips the step already (the failing example passes there); the apply() this fix overrides is Keras 3's" }
# "tf2.4" = { not-applicable = "Keras 2: its LossScaleOptimizer all-reduces the gradients before it decides, so every replica skips the step already (the failing example passes there); the apply() this fix overrides is Keras 3's" }
# "tf1.15" = { not-applicable = "TF 1.15 has tf.keras.mixed_precision.LossScaleOptimizer only under experimental, and its MirroredStrategy() counts GPUs only, so it does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf


class AllReplicasLossScaleOptimizer(tf.keras.mixed_precision.LossScaleOptimizer):
    """Skips the step on every replica when the gradients of any replica are not finite."""

    def apply(self, grads, trainable_variables=None):
        ctx = tf.distribute.get_replica_context()
        if ctx is not None and ctx.num_replicas_in_sync > 1:
            not_finite_here = 1.0 - tf.cast(self.check_finite(grads), tf.float32)
            not_finite_anywhere = ctx.all_reduce(tf.distribute.ReduceOp.SUM, not_finite_here) > 0
            # Poison every replica's gradients, so that replica 0, whose verdict Keras takes, sees it.
            grads = [g if g is None else tf.where(not_finite_anywhere, tf.fill(tf.shape(g), tf.constant(np.nan, g.dtype)), g)
                     for g in grads]
        return super().apply(grads, trainable_variables)


def local_copies(variable):
    variable = variable.value if isinstance(getattr(variable, "value", None), tf.Variable) else variable
    return [copy.numpy() for copy in strategy.experimental_local_results(variable)]


def data(overflowing_replicas):
    """Global batches of 8 examples; replica r gets examples 2r and 2r+1 of each batch."""
    x = np.linspace(-1.0, 1.0, 8 * 2 * len(overflowing_replicas), dtype="float32").reshape(-1, 2)
    for batch, replica in enumerate(overflowing_replicas):
        if replica is not None:
            x[8 * batch + 2 * replica: 8 * batch + 2 * replica + 2] = 1e30
    return x, np.ones((len(x), 1), "float32")


strategy = tf.distribute.MirroredStrategy()
assert strategy.num_replicas_in_sync == 4

# 1. The failing example's step: replica 1's gradients overflow.
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)),
                                 tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    optimizer = AllReplicasLossScaleOptimizer(tf.keras.optimizers.SGD(0.01))
    model.compile(optimizer=optimizer, loss="mse")
x = np.ones((8, 2), "float32")
x[2:4] = 1e18
model.fit(x, np.zeros((8, 1), "float32"), batch_size=8, epochs=1, shuffle=False, verbose=0)
copies = local_copies(model.layers[0].kernel)
print("kernel on each replica:", [c.ravel().tolist() for c in copies])
print("loss scale:", float(optimizer.dynamic_scale.numpy()))
assert len(copies) == 4 and all((c == 1.0).all() for c in copies), "the step was not skipped everywhere"
assert float(optimizer.dynamic_scale.numpy()) == 2.0 ** 14, "the loss scale was not lowered"


# 2. Variation: another model in mixed precision (float16 computations, a hidden layer, Adam with
#    slots), three steps: finite, an overflow on replica 3, finite again; compared with the same
#    training on one device.
tf.keras.mixed_precision.set_global_policy("mixed_float16")
def build(strategy_optimizer):
    tf.keras.utils.set_random_seed(1)
    deeper = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(4, activation="relu"),
                                  tf.keras.layers.Dense(1)])
    deeper.compile(optimizer=strategy_optimizer(tf.keras.optimizers.Adam(0.01)), loss="mse")
    return deeper


x, y = data([None, 3, None])
with strategy.scope():
    deeper = build(AllReplicasLossScaleOptimizer)
deeper.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
alone = build(tf.keras.mixed_precision.LossScaleOptimizer)  # one device, no strategy
alone.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)

for variable, reference in zip(deeper.trainable_variables, alone.trainable_variables):
    for copy in local_copies(variable):
        assert np.isfinite(copy).all(), "a weight is not finite"
        np.testing.assert_allclose(copy, reference.numpy(), rtol=1e-3, atol=1e-4)
scales = [float(m.optimizer.dynamic_scale.numpy()) for m in (deeper, alone)]
print("variation: weights finite on 4 replicas and equal to one device's; loss scales:", scales)
assert scales == [2.0 ** 14, 2.0 ** 14]
tf.keras.mixed_precision.set_global_policy("float32")
# --8<-- [end:example]
