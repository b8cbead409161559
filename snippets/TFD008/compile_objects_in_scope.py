# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no OptimizerV2 (tf.keras.optimizers.legacy), and its compile() checks no optimizer" }
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() counts GPUs only (1 replica here), and with the 4 logical devices named, its tf.keras fit failed on them for reasons unrelated to this entry (AssertionError, or a graph tensor passed to an eager function)" }
# ///
# --8<-- [start:example]
import os
import tempfile

import numpy as np
import tensorflow as tf


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    rid = tf.distribute.get_replica_context().replica_id_in_sync_group
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


# OptimizerV2: tf.keras.optimizers up to Keras 2.10, tf.keras.optimizers.legacy from Keras 2.11
optimizers = getattr(tf.keras.optimizers, "legacy", tf.keras.optimizers)

strategy = tf.distribute.MirroredStrategy()
x, y = np.ones((16, 3), "float32"), np.zeros((16, 2), "float32")
checkpoint_dir = tempfile.mkdtemp()


def build():  # everything compile receives, made in the scope (the callers enter it), as the model is
    optimizer = optimizers.Adam(0.01)
    mae = tf.keras.metrics.MeanAbsoluteError(name="mae_object")
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    return model, optimizer, mae


for stage in ("first run", "resumed run"):  # the second one restores the first one's checkpoint
    with strategy.scope():
        model, optimizer, mae = build()
        checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
        if stage == "resumed run":
            checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir))  # creates the step counter, in the scope
            assert np.array_equal(model.trainable_variables[0].numpy(), trained)  # the first run's kernel
        print(stage, "starts at step", int(optimizer.iterations.numpy()))  # reading it is fine here
        model.compile(optimizer=optimizer, loss="mse", metrics=[mae, replica_id])
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)  # 2 steps
    checkpoint.save(os.path.join(checkpoint_dir, "ckpt"))

    kernel = model.trainable_variables[0]
    copies = [c.numpy() for c in strategy.experimental_local_results(kernel)]
    print("  step counter:", type(optimizer.iterations).__name__, int(optimizer.iterations.numpy()))
    print("  kernel copies identical:", len(copies), all(np.array_equal(copies[0], c) for c in copies))
    print("  mean replica id seen by the metric:", history.history["replica_id"][0])
    assert isinstance(optimizer.iterations, tf.distribute.DistributedValues)
    assert int(optimizer.iterations.numpy()) == (2 if stage == "first run" else 4)
    assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)
    assert history.history["replica_id"][0] == 1.5
    trained = copies[0]
# --8<-- [end:example]
