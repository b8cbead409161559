# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import os
import tempfile

import tensorflow as tf

devices = None  # MirroredStrategy() takes every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does
    tf.compat.v1.enable_eager_execution()
if tf.__version__.startswith(("1.", "2.0.")):  # its MirroredStrategy() counts GPUs only:
    config = tf.config.experimental  # name the machine's devices, its GPUs if it has any
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]
strategy = tf.distribute.MirroredStrategy(devices)
run = getattr(strategy, "run", None) or strategy.experimental_run_v2  # its older name
load = tf.compat.v2.saved_model.load  # the TF 2 loader (TF 1.x: not the v1 one)


class Scaler(tf.Module):
    def __init__(self):
        with strategy.scope():
            self.factor = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])  # a batch of any size
    def serve(self, x):
        return x * self.factor


module = Scaler()
for x in ([1.0, 2.0], [1.0, 2.0, 3.0]):  # two batch sizes
    outputs = run(lambda x: module.serve(x), args=(tf.constant(x),))  # called by the replicas
    print("outputs of the replicas:", [o.numpy().tolist() for o in strategy.experimental_local_results(outputs)])
    assert len(strategy.experimental_local_results(outputs)) == 4

path = os.path.join(tempfile.mkdtemp(), "scaler")
tf.saved_model.save(module, path)  # succeeds
restored = load(path)  # as a serving process would, from the files alone
results = [restored.serve(tf.constant(x)).numpy().tolist() for x in ([1.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0])]
print("restored, batches of 2 and 5:", results)
assert results == [[2.0, 4.0], [2.0, 4.0, 6.0, 8.0, 10.0]]
# --8<-- [end:example]
