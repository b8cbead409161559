# /// tfdist
# doctor = ["model", "loaded"]
# [expect]
# default = { raises = "InvalidArgumentError", match = "Trying to access a placeholder that is not supposed to be executed" }
# "tf1.15" = { not-applicable = "strategy.run and experimental_distribute_values_from_function are TF 2 APIs (TF 1.15 has experimental_run_v2 only)" }
# "tf2.21-keras3" = { raises = "ValueError", match = "Invalid filepath extension for saving" }
# ///
# --8<-- [start:example]
import atexit
import os
import shutil
import tempfile

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
LOG = os.path.join(tmp, "tf_print.log")  # the layer's tf.print writes here, so that its lines can be counted
python_calls = []  # grows each time IdLayer.call runs as Python code (= each trace)


class IdLayer(tf.keras.layers.Layer):
    """Logs the replica id as in the report, and outputs it for each example."""

    def call(self, inputs):
        python_calls.append(1)
        ctx = tf.distribute.get_replica_context()  # None in cross-replica context
        rid = ctx.replica_id_in_sync_group if ctx is not None else -1
        tf.print("global_replica_id: {}".format(rid), output_stream="file://" + LOG)  # the report's log line
        return tf.zeros_like(inputs[:, :1]) + tf.cast(rid, tf.float32)


class Demo(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.ids = IdLayer()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x), self.ids(x)


@tf.function
def step(model, x):
    logits, ids_in_model = model(x)
    return logits, ids_in_model, tf.distribute.get_replica_context().replica_id_in_sync_group


def run_on_replicas(model, label):
    # replica r gets a batch filled with r + 1, so every replica's output is distinct
    x = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.fill([2, 3], float(ctx.replica_id_in_sync_group + 1)))
    del python_calls[:]
    open(LOG, "w").close()
    logits, ids_in_model, rid = strategy.run(step, args=(model, x))
    local = strategy.experimental_local_results
    rids = [int(r) for r in local(rid)]
    inside = [int(t[0, 0]) for t in local(ids_in_model)]
    outputs = [float(t[0, 0]) for t in local(logits)]
    with open(LOG) as log:
        logged = log.read().splitlines()
    print("%s: replica ids %s; ids seen inside the model %s; outputs %s" % (label, rids, inside, outputs))
    print("  Python calls of IdLayer.call: %d; lines written by tf.print: %d" % (len(python_calls), len(logged)))
    for line in sorted(set(logged)):
        print("    %d x %s" % (logged.count(line), line))
    assert rids == [0, 1, 2, 3] and outputs == [3.0, 6.0, 9.0, 12.0]  # all 4 replicas computed
    assert len(logged) == 4  # the log line is written once per replica at every call
    return inside


with strategy.scope():
    model = Demo()
    model(tf.zeros([1, 3]))  # build the variables (cross-replica call: IdLayer outputs -1)
run_on_replicas(model, "original model")
run_on_replicas(model, "original model, 2nd run")  # no retrace: no Python calls

path = os.path.join(tmp, "demo")
model.save(path)  # SavedModel directory in Keras 2
with strategy.scope():
    loaded = tf.keras.models.load_model(path)  # no classes: a revived model
    print("loaded class:", type(loaded).__module__ + "." + type(loaded).__name__)
    loaded(tf.ones([1, 3]))  # a "dummy forward pass inside the scope"

run_on_replicas(loaded, "loaded model")
# --8<-- [end:example]
