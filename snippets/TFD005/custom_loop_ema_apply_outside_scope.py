# /// tfdist
# [expect]
# default = { raises = "TypeError", match = "Expected float32 passed to parameter 'y' of op 'Sub', got MirroredVariable" }
# "tf1.15" = { not-applicable = "strategy.run does not exist in TF 1.15 (it has experimental_run_v2), and eager tf.function training loops are TF 2 style" }
# ///
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    w = tf.Variable([1.0, 2.0], name="w", aggregation=tf.VariableAggregation.MEAN)
ema = tf.train.ExponentialMovingAverage(0.5)


@tf.function
def train_step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        grad = tf.ones([2]) * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32)
        w.assign_sub(0.1 * grad)

    strategy.run(replica_fn)
    ema.apply([w])  # creates the average on the first call: here NOT under strategy.scope()


for _ in range(2):
    train_step()  # called (and traced) outside strategy.scope()
avg = ema.average(w)
print(avg.name, type(avg).__name__, avg.numpy().tolist())
# --8<-- [end:example]
