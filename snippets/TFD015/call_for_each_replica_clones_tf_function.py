# /// tfdist
# [expect]
# default = { prints = "tf_convert returns serve itself: True\\nfunctions serve traced after that call: 1\\n[\\s\\S]*functions serve traced after call_for_each_replica: 0$" }
# "tf2.0.4" = "passes"
# "tf1.15" = "passes"
# ///
# --8<-- [start:example]
import tensorflow as tf
from tensorflow.python.autograph.core import ag_ctx  # private: what strategy.run uses
from tensorflow.python.autograph.impl import api as autograph

devices = None  # MirroredStrategy() takes every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does
    tf.compat.v1.enable_eager_execution()
if tf.__version__.startswith(("1.", "2.0.")):  # its MirroredStrategy() counts GPUs only:
    config = tf.config.experimental  # name the machine's devices, its GPUs if it has any
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]
strategy = tf.distribute.MirroredStrategy(devices)


class Scaler(tf.Module):
    def __init__(self):
        with strategy.scope():
            self.factor = tf.Variable(2.0)

    @tf.function  # no input_signature: only the calls it has traced can be saved
    def serve(self, x):
        return x * self.factor


def traced(function):  # private: the traced functions tf.saved_model.save would export
    return len(function._list_all_concrete_functions_for_serialization())


x = tf.constant([1.0, 2.0])
first = Scaler()  # 1. what strategy.run does first: AutoGraph's tf_convert
converted = autograph.tf_convert(first.serve, ag_ctx.control_status_ctx(), convert_by_default=False)
print("tf_convert returns serve itself:", converted is first.serve)
converted(x)
print("functions serve traced after that call:", traced(first.serve))

second = Scaler()  # 2. what strategy.run does next: the strategy calls the function on each replica
outputs = strategy.extended.call_for_each_replica(second.serve, args=(x,))
results = [o.numpy().tolist() for o in strategy.experimental_local_results(outputs)]
print("outputs of the replicas:", results)
print("functions serve traced after call_for_each_replica:", traced(second.serve))
assert results == [[2.0, 4.0]] * 4 and traced(first.serve) == 1
# --8<-- [end:example]
