# /// tfdist
# cluster = { worker = 4 }
# [expect]
# default = { raises = "RuntimeError", match = "Collective ops must be configured at program startup" }
# "tf1.15" = { not-applicable = "TF 1.15's experimental MultiWorkerMirroredStrategy does not fit the 4-worker runner" }
# ///
# --8<-- [start:example]
import tensorflow as tf

# Something touches the TensorFlow runtime first: a tensor, a tf.config call,
# or a Keras model built before the strategy.
warmup = tf.constant([1.0, 2.0]) * 2.0

strategy = tf.distribute.MultiWorkerMirroredStrategy()  # too late


def step():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


print(strategy.experimental_local_results(strategy.run(step)))
# --8<-- [end:example]
