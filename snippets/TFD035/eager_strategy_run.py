# /// tfdist
# [expect]
# default = { prints = "TensorFlow warned: Using MirroredStrategy eagerly has significant overhead currently\\. [^\\n]*inside a tf\\.function to get the best performance\\.\\nPython threads that ran the replicas: 4 \\| the main thread among them: False\\nmost replicas inside the step function at the same time: 1\\norder: 0 start, 0 end, 1 start, 1 end, 2 start, 2 end, 3 start, 3 end" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import logging
import threading
import time

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
events, threads, inside = [], set(), []


def replica_step(batch):
    replica = int(tf.distribute.get_replica_context().replica_id_in_sync_group)
    threads.add(threading.current_thread())
    inside.append(replica)
    events.append((replica, "start", len(inside)))  # how many replicas are in here right now
    time.sleep(0.2)  # long enough for another replica's thread to come in, if one could
    total = tf.reduce_sum(batch)
    inside.remove(replica)
    events.append((replica, "end", len(inside)))
    return tf.distribute.get_replica_context().replica_id_in_sync_group, total


data = np.arange(16, dtype="float32").reshape(8, 2)
batches = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(data).batch(8))
ids, totals = strategy.run(replica_step, args=(next(iter(batches)),))  # called eagerly: no tf.function

for message in logged.messages:
    if "eagerly" in message:
        print("TensorFlow warned:", message)
print("Python threads that ran the replicas:", len(threads),
      "| the main thread among them:", threading.main_thread() in threads)
print("most replicas inside the step function at the same time:", max(n for _, what, n in events if what == "start"))
print("order:", ", ".join(f"{replica} {what}" for replica, what, _ in events))
replica_ids = [int(t) for t in strategy.experimental_local_results(ids)]
print("replica ids:", replica_ids, "| sum of the batch:", float(strategy.reduce("SUM", totals, axis=None)))
# --8<-- [end:example]
