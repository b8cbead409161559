# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import logging

import numpy as np
import tensorflow as tf


class KeepWarnings(logging.Handler):  # collects what TensorFlow's logger writes to the console
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


logged = KeepWarnings()
tf.get_logger().addHandler(logged)

strategy = tf.distribute.MirroredStrategy()
python_calls = []


def replica_step(batch):
    python_calls.append(1)  # runs only while tf.function traces the step, once per replica
    return tf.distribute.get_replica_context().replica_id_in_sync_group, tf.reduce_sum(batch)


@tf.function  # the whole distributed step, strategy.run included
def distributed_step(batch):
    return strategy.run(replica_step, args=(batch,))


def run_on(rows, columns):
    data = np.arange(rows * columns, dtype="float32").reshape(rows, columns)
    batches = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(data).batch(rows))
    ids, totals = distributed_step(next(iter(batches)))
    replica_ids = [int(t) for t in strategy.experimental_local_results(ids)]
    total = float(strategy.reduce("SUM", totals, axis=None))
    print(f"batch {rows}x{columns}: replica ids {replica_ids} | sum {total} | Python calls so far: {len(python_calls)}")
    assert replica_ids == [0, 1, 2, 3] and total == float(data.sum())


run_on(8, 2)
run_on(12, 3)  # another shape: traced again
run_on(8, 2)  # the first shape again: its graph is reused, no Python runs
eager_warnings = [m for m in logged.messages if "eagerly" in m]
print("warnings about eager use:", len(eager_warnings))
assert not eager_warnings and len(python_calls) == 8
# --8<-- [end:example]
