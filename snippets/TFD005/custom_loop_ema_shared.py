# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "strategy.run does not exist in TF 1.15 (it has experimental_run_v2), and eager tf.function training loops are TF 2 style" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    # MEAN: an update made in replica context is averaged over the replicas
    w = tf.Variable([1.0, 2.0], name="w", aggregation=tf.VariableAggregation.MEAN)
    # one EMA object each, created once, outside the per-replica function
    ema_replica = tf.train.ExponentialMovingAverage(0.5, name="ema_replica")
    ema_cross = tf.train.ExponentialMovingAverage(0.5, name="ema_cross")


@tf.function
def train_step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        rid = ctx.replica_id_in_sync_group
        grad = tf.ones([2]) * tf.cast(rid + 1, tf.float32)  # 1, 2, 3, 4: mean 2.5
        w.assign_sub(0.1 * grad)  # aggregated: w -= 0.25 once per step
        ema_replica.apply([w])  # variant 1: inside strategy.run (replica context)
        return rid

    rids = strategy.run(replica_fn)
    ema_cross.apply([w])  # variant 2: after strategy.run (cross-replica context)
    return rids


with strategy.scope():  # trace under the scope: the part outside strategy.run is cross-replica
    for _ in range(2):
        rids = train_step()

print("replica ids:", [int(r) for r in strategy.experimental_local_results(rids)])
assert [int(r) for r in strategy.experimental_local_results(rids)] == [0, 1, 2, 3]
print("w:", w.numpy().tolist())
assert np.allclose(w.numpy(), [0.5, 1.5])
# the averages start from w's initial value [1, 2]; two updates with decay 0.5:
# [0.875, 1.875] after w = [0.75, 1.75], then [0.6875, 1.6875] after w = [0.5, 1.5]
for ema in (ema_replica, ema_cross):
    avg = ema.average(w)
    copies = [c.numpy().tolist() for c in strategy.experimental_local_results(avg)]
    print(avg.name, type(avg).__name__, copies[0], "same on all 4 devices:", copies.count(copies[0]) == 4)
    assert type(avg).__name__ == "MirroredVariable" and copies.count(copies[0]) == 4
    assert np.allclose(copies[0], [0.6875, 1.6875]), copies
# --8<-- [end:example]
