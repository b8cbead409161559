# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no OptimizerV2 (tf.keras.optimizers.legacy.Adam() raises ImportError); see weights_after_optimizer_build.py" }
# "tf1.15" = { not-applicable = "restore_outside_scope.py does not fail on TF 1.15 (its OptimizerV2.add_slot has no strategy check), so there is nothing to fix" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
# OptimizerV2: tf.keras's optimizer up to TF 2.10, kept as tf.keras.optimizers.legacy afterwards
optimizers = getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers)
x = np.arange(48, dtype="float32").reshape(16, 3) / 48
y = np.ones((16, 2), "float32")


def compiled_model(optimizer):  # two layers: kernels and biases of other shapes
    with strategy.scope():
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(5, kernel_initializer="ones")(inputs)
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(hidden))
        model.compile(optimizer=optimizer, loss="mse")
    return model


def slots(model):  # Adam's m and v of every trainable variable, once they exist
    optimizer = model.optimizer
    return [optimizer.get_slot(v, name) for v in model.trainable_variables for name in optimizer.get_slot_names()]


def save(model):
    return tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(os.path.join(tempfile.mkdtemp(), "ckpt"))


model = compiled_model(optimizers.Adam(0.1))  # the run without restarts
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
path = save(model)
for restart in (1, 2):  # each restart resumes from the checkpoint the one before wrote
    resumed = compiled_model(optimizers.Adam(0.1))
    with strategy.scope():  # restore inside the scope: slots it creates are mirrored
        tf.train.Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(path)
    print("restart %d: slots right after the restore: %d" % (restart, len(slots(resumed))))
    resumed.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # the run without restarts
    same = all(np.allclose(a.numpy(), b.numpy()) for a, b in zip(slots(model), slots(resumed)))
    same_weights = all(np.allclose(a.numpy(), b.numpy()) for a, b in zip(model.weights, resumed.weights))
    kinds = sorted({type(s).__name__ for s in slots(resumed)})
    copies = [len(strategy.experimental_local_results(s)) for s in slots(resumed)]
    print("restart %d: after the next epoch %d slots (%s), equal to those of the run without restarts: %s; "
          "weights equal: %s" % (restart, len(copies), ", ".join(kinds), same, same_weights))
    assert len(copies) == 8 and set(copies) == {4} and kinds == ["MirroredVariable"] and same and same_weights
    path = save(resumed)
# --8<-- [end:example]
