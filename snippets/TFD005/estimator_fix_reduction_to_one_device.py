# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "tf.estimator was removed in TensorFlow 2.16" }
# "tf2.21-tfkeras" = { not-applicable = "tf.estimator was removed in TensorFlow 2.16" }
# ///
# --8<-- [start:example]
import shutil
import tempfile

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
reduce_to_one = tf.distribute.ReductionToOneDevice()  # sum on one device, copy the result back
if tf.__version__.startswith("1."):
    # what the report used on TF 1.x: one replica per GPU, GPU:0..GPU:3
    strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=4, cross_device_ops=reduce_to_one)
elif tf.__version__.startswith("2.0."):
    # TF 2.0's MirroredStrategy() looks for GPUs only: name the 4 it would pick on 4 GPUs
    strategy = tf.distribute.MirroredStrategy(["/gpu:%d" % i for i in range(4)],
                                              cross_device_ops=reduce_to_one)
else:
    # all local devices, as with MirroredStrategy(), but not its default all-reduce
    strategy = tf.distribute.MirroredStrategy(cross_device_ops=reduce_to_one)
assert strategy.num_replicas_in_sync == 4, strategy.num_replicas_in_sync
DECAY = 0.5
ema = v1.train.ExponentialMovingAverage(DECAY)  # created once, shared by all model_fn calls


def input_fn():
    x = tf.data.Dataset.from_tensors([1.0, 2.0, 3.0])
    y = tf.data.Dataset.from_tensors(1.0)
    return tf.data.Dataset.zip((x, y)).repeat(16).batch(1)


def model_fn(features, labels, mode):
    layer = v1.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros", name="dense")
    loss = v1.losses.mean_squared_error(labels, tf.reshape(layer(features), [-1]))
    step = v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=v1.train.get_global_step())
    with tf.control_dependencies([step]):
        update_averages = ema.apply(v1.trainable_variables())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=update_averages)


model_dir = tempfile.mkdtemp()
try:
    config = tf.estimator.RunConfig(model_dir=model_dir, train_distribute=strategy)
    estimator = tf.estimator.Estimator(model_fn, config=config)
    estimator.train(input_fn, steps=1)  # one batch on each of the 4 replicas
    names = estimator.get_variable_names()
    averages = sorted(n for n in names if n.endswith("/ExponentialMovingAverage"))
    print("replicas:", strategy.num_replicas_in_sync)
    print("averages:", averages)
    assert averages == ["dense/bias/ExponentialMovingAverage",
                        "dense/kernel/ExponentialMovingAverage"], averages
    assert not [n for n in names if "replica_" in n], names
    for weight, initial in (("dense/kernel", 1.0), ("dense/bias", 0.0)):
        trained = estimator.get_variable_value(weight)
        average = estimator.get_variable_value(weight + "/ExponentialMovingAverage")
        assert not np.allclose(trained, initial), (weight, trained)  # the step moved it
        # one update from the initial value: DECAY * initial + (1 - DECAY) * trained
        assert np.allclose(average, DECAY * initial + (1 - DECAY) * trained), (weight, average)
    print("average == 0.5 * initial + 0.5 * trained, kernel and bias:", True)
finally:
    shutil.rmtree(model_dir)
# --8<-- [end:example]
