# /// tfdist
# [expect]
# default = { raises = "ValueError", match = "Found zero restored functions for caller function" }
# "tf1.15" = "passes"
# "tf2.0.4" = "passes"
# "tf2.1.0" = { raises = "ValueError", match = "Could not find matching function to call loaded from the SavedModel[\\s\\S]*match one of the following 0 option" }
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

    @tf.function  # no input_signature: only the calls it has traced can be saved
    def serve(self, x):
        return x * self.factor


module = Scaler()
outputs = run(module.serve, args=(tf.constant([1.0, 2.0]),))  # the tf.function, passed to run
print("outputs of the replicas:", [o.numpy().tolist() for o in strategy.experimental_local_results(outputs)])
if hasattr(module.serve, "experimental_get_tracing_count"):  # TF 2.3 and later
    print("times serve was traced:", module.serve.experimental_get_tracing_count())

path = os.path.join(tempfile.mkdtemp(), "scaler")
tf.saved_model.save(module, path)  # succeeds
restored = load(path)
print("restored:", restored.serve(tf.constant([1.0, 2.0])).numpy().tolist())
# --8<-- [end:example]
