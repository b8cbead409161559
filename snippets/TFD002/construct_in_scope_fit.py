# /// tfdist
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15: MirroredStrategy() with no device list does not use the 4 logical CPU devices (it makes 1 replica)" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def tf_variable(v):
    # Keras 3 wraps each tf.Variable in a keras.Variable; `.value` is the tf.Variable.
    return v.value if isinstance(getattr(v, "value", None), tf.Variable) else v


def replica_id(y_true, y_pred):
    # A metric that reports which replica computed each example: its mean over the epoch is
    # (0 + 1 + 2 + 3) / 4 = 1.5 only if all 4 replicas ran the training step.
    ctx = tf.distribute.get_replica_context()  # None while Keras 3 builds the metrics before training
    rid = ctx.replica_id_in_sync_group if ctx is not None else -1
    return tf.fill(tf.shape(y_true)[:1], tf.cast(rid, tf.float32))


class Subclassed(tf.keras.Model):  # creates its weights on its first call, like the deferred Sequential
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(4, activation="relu")
        self.out = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.out(self.hidden(x))


def functional():  # creates its weights in the constructor
    inputs = tf.keras.Input(shape=(3,))
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(tf.keras.layers.Dense(4, activation="relu")(inputs)))


kinds = {"Sequential, deferred": lambda: tf.keras.Sequential([tf.keras.layers.Dense(2)]),  # no weights yet
         "functional": functional, "subclassed": Subclassed}
for kind, construct in kinds.items():
    with strategy.scope():  # construct, first call and compile all happen in the scope
        model = construct()
        model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=[replica_id])

    history = model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"),
                        batch_size=8, epochs=1, verbose=0)

    weights = [tf_variable(v) for v in model.trainable_variables]
    copies = [strategy.experimental_local_results(v) for v in weights]
    mirrored = all(isinstance(v, tf.distribute.DistributedValues) and len({c.device for c in cs}) == 4
                   for v, cs in zip(weights, copies))
    identical = all(np.array_equal(cs[0].numpy(), c.numpy()) for cs in copies for c in cs)
    print("%s: %d weights, each mirrored on 4 devices: %s" % (kind, len(weights), mirrored))
    print("  copies identical after training:", identical)
    print("  mean replica id seen by the metric:", history.history["replica_id"][0])
    assert weights and mirrored and identical
    assert history.history["replica_id"][0] == 1.5
# --8<-- [end:example]
