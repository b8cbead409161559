# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "tf.function only supports singleton tf.Variables created on the first call" }
# "tf2.4" = { raises = "ValueError", match = "tf.function-decorated function tried to create variables on non-first call" }
# "tf2.5" = { raises = "ValueError", match = "tf.function-decorated function tried to create variables on non-first call" }
# "tf1.15" = { not-applicable = "strategy.run does not exist in TF 1.15 (it has experimental_run_v2), and eager tf.function training loops are TF 2 style" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    w = tf.Variable([1.0, 2.0], name="w", aggregation=tf.VariableAggregation.MEAN)


@tf.function
def train_step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        grad = tf.ones([2]) * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32)
        w.assign_sub(0.1 * grad)
        ema = tf.train.ExponentialMovingAverage(0.5)  # a new EMA object in every replica call
        ema.apply([w])  # ...so every replica tries to create its own average variable
        return ema.average(w).read_value()

    return strategy.run(replica_fn)


with strategy.scope():
    averages = train_step()
print([a.numpy().tolist() for a in strategy.experimental_local_results(averages)])
# --8<-- [end:example]
