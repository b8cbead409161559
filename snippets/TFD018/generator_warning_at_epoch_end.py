# /// tfdist
# tensorflow-log = "it shows a warning that TensorFlow's C++ core logs when an epoch's iterator is torn down"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them even in the fixes (AssertionError when eager, uninitialized replica variables in graph mode)" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def examples():  # a Python generator: the pipeline runs it through Dataset.from_generator
    for i in range(64):
        x = np.full((3,), i / 64.0, dtype="float32")
        yield x, x.sum(keepdims=True)


dataset = tf.data.Dataset.from_generator(
    examples, (tf.float32, tf.float32), ((3,), (1,))).batch(16).repeat()

with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")

# What TensorFlow writes to the terminal (file descriptor 2), kept so that it can be shown below
log = tempfile.TemporaryFile()
terminal = os.dup(2)
os.dup2(log.fileno(), 2)
try:
    history = model.fit(dataset, epochs=2, steps_per_epoch=3, verbose=0)
finally:
    os.dup2(terminal, 2)
log.seek(0)
warned = [line.split("] ", 1)[-1] for line in log.read().decode(errors="replace").splitlines()
          if "GeneratorDataset iterator" in line]
print("epochs trained:", len(history.history["loss"]), "final loss finite:", bool(np.isfinite(history.history["loss"][-1])))
print("warnings about the generator's iterator:", len(warned))
for text in sorted(set(warned)):
    print("  ", text)

kernel = model.trainable_variables[0]
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
print("kernel copies:", len(copies), "identical:", all(np.array_equal(copies[0], c) for c in copies))
assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"][-1])
assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
# --8<-- [end:example]
