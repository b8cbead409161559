# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "module 'tensorflow' has no attribute 'contrib'" }
# "tf1.15" = "passes"
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

print("replicas:", tf.distribute.MirroredStrategy(devices).num_replicas_in_sync)  # this machine's: 4

# The same strategy as tutorials and scripts of the TensorFlow 1 years spell it
strategy = tf.contrib.distribute.MirroredStrategy(devices)
# and its strategy for several machines, which tf.distribute calls MultiWorkerMirroredStrategy
print("contrib:", tf.contrib.distribute.CollectiveAllReduceStrategy.__name__)


@tf.function
def step():
    ctx = tf.distribute.get_replica_context()
    return ctx.replica_id_in_sync_group


ids = strategy.experimental_run_v2(step)
replica_ids = [int(i) for i in strategy.experimental_local_results(ids)]
print("replica ids:", replica_ids)
assert replica_ids == [0, 1, 2, 3]
# --8<-- [end:example]
