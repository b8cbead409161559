# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import os
import tempfile

import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name
load = tf.saved_model.load if hasattr(strategy, "run") else tf.compat.v2.saved_model.load  # TF 1.x: v1 loader


class Scaler(tf.Module):
    def __init__(self):
        with strategy.scope():
            self.factor = tf.Variable(2.0)

    @tf.function  # no input_signature: only the calls it has traced can be saved
    def serve(self, x):
        return x * self.factor


module = Scaler()
outputs = run(lambda x: module.serve(x), args=(tf.constant([1.0, 2.0]),))  # called by the replicas
print("outputs of the replicas:", [o.numpy().tolist() for o in strategy.experimental_local_results(outputs)])
if hasattr(module.serve, "experimental_get_tracing_count"):  # TF 2.3 and later
    print("times serve was traced:", module.serve.experimental_get_tracing_count())

path = os.path.join(tempfile.mkdtemp(), "scaler")
tf.saved_model.save(module, path)  # succeeds
restored = load(path)
result = restored.serve(tf.constant([1.0, 2.0])).numpy().tolist()
print("restored:", result)
assert result == [2.0, 4.0] and len(strategy.experimental_local_results(outputs)) == 4
# --8<-- [end:example]
