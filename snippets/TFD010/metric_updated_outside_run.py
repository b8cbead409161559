# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf\\.VariableAggregation\\.SUM`" }
# "tf2.21-keras3" = "passes"
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name

with strategy.scope():
    mean = tf.keras.metrics.Mean()
state = mean.variables[0]  # the running total (Keras 3 wraps it: `.value` is the tf.Variable)
state = state.value if isinstance(getattr(state, "value", None), tf.Variable) else state
print("total:", type(state).__name__, state.synchronization.name, state.aggregation.name)

mean.update_state(10.0)  # outside strategy.run: a cross-replica context


@tf.function
def step():
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        mean.update_state(tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)  # 1, 2, 3, 4

    run(replica_fn)


step()
print("mean:", float(mean.result()))
assert float(mean.result()) == 4.0  # (10 + 1 + 2 + 3 + 4) / 5
# --8<-- [end:example]
