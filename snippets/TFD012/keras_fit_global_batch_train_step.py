# /// tfdist
# restart-kernel = "every MirroredStrategy in one process numbers its collective operations from the same keys (TFD016), and this model's gradients have other shapes than those of the cells above: Adam's all-reduce stops with a shape mismatch"
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.x Keras has no Model.train_step to override" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def average_loss(per_example_loss, global_batch_size):  # sum / global_batch_size
    try:  # newer releases take an integer tensor
        return tf.nn.compute_average_loss(per_example_loss, global_batch_size=global_batch_size)
    except TypeError:  # older ones divide by it as given: it must have the losses' dtype
        size = tf.cast(global_batch_size, per_example_loss.dtype)
        return tf.nn.compute_average_loss(per_example_loss, global_batch_size=size)


class GlobalMeanModel(tf.keras.Model):  # fit's step, with the mean taken over the global batch
    def train_step(self, data):
        x, y = data
        # this step's global batch: the replicas' example counts, summed (2 in a last batch of 2, not 8)
        batch = tf.distribute.get_replica_context().all_reduce("sum", tf.shape(y)[0])
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(self(x, training=True) - y), axis=-1)  # mse, one per example
            loss = average_loss(per_example, batch)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))  # sums the 4 replicas' gradients
        return {"loss": loss}


def build(model_class, loss):  # 3 inputs, a bias and an optimizer with slots; the same start everywhere
    inputs = tf.keras.Input(shape=(3,))
    outputs = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")(inputs)
    model = model_class(inputs=inputs, outputs=outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss=loss)
    return model


def data(n):  # n examples; batches of 8 (2 on each replica), the last one partial
    x = np.linspace(-1.0, 2.0, 3 * n, dtype="float32").reshape(n, 3)
    return x, np.stack([x.sum(axis=1), x[:, 0] - x[:, 2]], axis=1)


with strategy.scope():
    model = build(GlobalMeanModel, None)  # the loss is computed in train_step
one_device = build(tf.keras.Model, "mse")  # the default strategy: plain fit with "mse"
for n, epochs in ((18, 2), (13, 1)):  # a last batch of 2 (2 epochs), then a second fit ending with 5
    for m in (model, one_device):
        m.fit(*data(n), batch_size=8, epochs=epochs, shuffle=False, verbose=0)

kernel = model.layers[-1].kernel
kernel = kernel.value if isinstance(getattr(kernel, "value", None), tf.Variable) else kernel  # Keras 3
copies = [v.numpy() for v in strategy.experimental_local_results(kernel)]
expected = one_device.layers[-1].kernel.numpy()
print("kernel copies equal the one-device kernel:", all(np.allclose(c, expected, atol=1e-5) for c in copies))
assert len(copies) == 4 and len({v.device for v in strategy.experimental_local_results(kernel)}) == 4
assert all(np.allclose(c, expected, atol=1e-5) for c in copies) and not np.allclose(expected, 1.0)
assert np.allclose(model.get_weights()[1], one_device.get_weights()[1], atol=1e-5)  # the bias too
# --8<-- [end:example]
