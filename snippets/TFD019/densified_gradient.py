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

VOCAB, DIM = 1000, 4
# As in the example above: the family of NcclAllReduce, which has no kernel for these CPUs
strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())
with strategy.scope():
    table = tf.Variable(tf.random.stateless_normal([VOCAB, DIM], seed=[1, 2]))


def step(ids):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.gather(table, ids)))
    grad = tf.convert_to_tensor(tape.gradient(loss, table))  # the advice: make the gradient dense
    summed = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grad)
    return tf.size(summed), summed


ids = np.array([3, 7, 3, 500, 9, 999, 42, 7], "int32")  # 2 per replica, as in the example above
dataset = tf.data.Dataset.from_tensor_slices(ids).batch(8)
batch = next(iter(strategy.experimental_distribute_dataset(dataset)))
sizes, summed = [strategy.experimental_local_results(t) for t in strategy.run(tf.function(step), args=(batch,))]
print("numbers all-reduced per replica:", [int(s) for s in sizes], "| numbers the 8 looked-up rows hold:", 8 * DIM)
print("warnings about IndexedSlices:", [m for m in logged.messages if "IndexedSlices" in m])

with tf.GradientTape() as tape:  # one device, the whole batch
    loss = tf.reduce_sum(tf.square(tf.gather(table, ids)))
expected = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
assert len(summed) == 4 and all(np.allclose(s.numpy(), expected) for s in summed)
print("every replica holds the one-device gradient: True")
# --8<-- [end:example]
