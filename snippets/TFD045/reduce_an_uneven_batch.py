# /// tfdist
# [expect]
# default = { raises = "InvalidArgumentError", match = "Inputs to operation AddN of type AddN must have the same size and shape\\.\\s+Input 0: \\[3,3\\] != input 3: \\[1,3\\]" }
# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run and no eager custom loops; its MirroredStrategy does not use the 4 logical CPU devices" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.linspace(1, 2, 30, dtype="float32").reshape(10, 3)  # one batch of 10 examples for 4 replicas
batch = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(16))))
print("examples per replica:", [int(part.shape[0]) for part in strategy.experimental_local_results(batch)])

# what Keras 3 does with the first batch before fit or evaluate starts: the mean of the replicas'
# parts, element by element (axis=None), which needs every part to have the same shape
strategy.reduce("MEAN", batch, axis=None)
# --8<-- [end:example]
