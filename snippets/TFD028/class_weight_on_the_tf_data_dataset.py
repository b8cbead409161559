# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: name the devices, because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
x = np.linspace(-1, 1, 32, dtype="float32").reshape(16, 2)
y = (np.arange(16) % 2).astype("int64")  # two classes; class 1 should count three times as much
class_weight = {0: 1.0, 1: 3.0}
weight_of_class = tf.constant([class_weight[0], class_weight[1]])


def with_sample_weight(features, label):  # what fit's class_weight does: a third element per example
    return features, label, tf.gather(weight_of_class, label)


def trained(scope, dataset, **fit_args):
    with scope:
        model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax", kernel_initializer="ones", input_shape=(2,))])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy")
    model.fit(dataset, epochs=2, verbose=0, **fit_args)  # a tf.data.Dataset: fit distributes it itself
    return model


for batch in (8, 12):  # global batch sizes; 12 leaves a last, partial batch of 4
    plain = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
    weighted = tf.data.Dataset.from_tensor_slices((x, y)).map(with_sample_weight).batch(batch)
    expected = trained(tf.distribute.get_strategy().scope(), weighted).get_weights()  # one device

    models = {"weights mapped in": trained(strategy.scope(), weighted)}
    if not tf.__version__.startswith("1."):  # TF 1.x: its Keras refuses class_weight under a strategy
        models["class_weight"] = trained(strategy.scope(), plain, class_weight=class_weight)
    for name, model in models.items():
        kernel = model.trainable_variables[0]
        if isinstance(getattr(kernel, "value", None), tf.Variable):  # Keras 3: a keras.Variable wraps the tf.Variable
            kernel = kernel.value
        copies = [tf.keras.backend.get_value(c) for c in strategy.experimental_local_results(kernel)]
        assert len(copies) == 4 and all(np.array_equal(copies[0], c) for c in copies)  # mirrored on 4 replicas
        for got, want in zip(model.get_weights(), expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)  # the same training as on one device
        assert not np.allclose(copies[0], 1.0)  # and it did train
        print("batch %d, %s: kernel [%s], same as one device" % (batch, name, " ".join("%.4f" % v for v in copies[0].ravel())))
# --8<-- [end:example]
