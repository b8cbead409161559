# /// tfdist
# [expect]
# default = { raises = "OutOfRangeError", match = "\\}\\} End of sequence \\[Op:IteratorGetNext\\]" }
# "tf2.5" = { raises = "OutOfRangeError", match = "^End of sequence \\[Op:IteratorGetNext\\]$" }
# "tf2.4" = { raises = "OutOfRangeError", match = "^End of sequence$" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

PER_REPLICA_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
global_batch = PER_REPLICA_BATCH * strategy.num_replicas_in_sync  # 16: what one step takes

x = np.linspace(0, 1, 192, dtype="float32").reshape(64, 3)
dataset = tf.data.Dataset.from_tensor_slices(x).batch(global_batch)  # 64 examples: 4 batches
iterator = iter(strategy.experimental_distribute_dataset(dataset))
steps_per_epoch = len(x) // PER_REPLICA_BATCH  # the mistake: 16, counted in per-replica batches


@tf.function
def train_step(batch):
    def replica_fn(batch):
        return tf.shape(batch)[0]  # the examples this replica got

    return strategy.run(replica_fn, args=(batch,))


for step in range(steps_per_epoch):
    examples = train_step(iterator.get_next())
    print("step", step, "examples per replica:", [int(n) for n in strategy.experimental_local_results(examples)])
# --8<-- [end:example]
