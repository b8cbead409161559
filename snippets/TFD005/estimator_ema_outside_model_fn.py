# /// tfdist
# [expect]
# default = "passes"
# "tf2.21-keras3" = { not-applicable = "this TensorFlow has no tf.estimator (its release notes list the removal)" }
# "tf2.21-tfkeras" = { not-applicable = "this TensorFlow has no tf.estimator (its release notes list the removal)" }
# ///
# --8<-- [start:example]
import shutil
import tempfile

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
if tf.__version__.startswith(("1.", "2.0.")):
    # Before TF 2.1, MirroredStrategy() counts GPUs only and takes CPU:0 alone on a machine
    # without them: name the machine's 4 devices, its GPUs if it has any
    config = tf.config.experimental
    devices = config.list_logical_devices("GPU") or config.list_logical_devices("CPU")
    strategy = tf.distribute.MirroredStrategy([d.name for d in devices])
else:
    strategy = tf.distribute.MirroredStrategy()
DECAY = 0.5


def input_fn():
    features = tf.data.Dataset.from_tensors([1.0, 2.0, 3.0])
    labels = tf.data.Dataset.from_tensors(1.0)
    return tf.data.Dataset.zip((features, labels)).repeat(16).batch(1)

ema = v1.train.ExponentialMovingAverage(DECAY)  # one EMA object, shared by every model_fn call


def model_fn(features, labels, mode):
    dense = v1.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros", name="dense")
    prediction = tf.reshape(dense(features), [-1])
    loss = v1.losses.mean_squared_error(labels, prediction)
    train_op = v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=v1.train.get_global_step())
    with tf.control_dependencies([train_op]):
        train_op = ema.apply(v1.trainable_variables())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


model_dir = tempfile.mkdtemp()
try:
    estimator = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(
        model_dir=model_dir, train_distribute=strategy))
    estimator.train(input_fn, steps=1)  # one step = one batch on each of the 4 replicas
    names = estimator.get_variable_names()
    print("replicas:", strategy.num_replicas_in_sync)
    print("variables:", names)
    assert "dense/kernel/ExponentialMovingAverage" in names
    assert not [n for n in names if "replica_" in n]
    # the average starts at the initial kernel (ones), then one update: 0.5 * 1 + 0.5 * kernel
    kernel = estimator.get_variable_value("dense/kernel")
    average = estimator.get_variable_value("dense/kernel/ExponentialMovingAverage")
    assert np.allclose(average, DECAY * 1.0 + (1 - DECAY) * kernel), (average, kernel)
    assert not np.allclose(kernel, 1.0)  # training moved the kernel
    print("average == 0.5 * initial + 0.5 * trained kernel:", True)
    # train again, as train_and_evaluate does: a new graph, restored from the checkpoint, same EMA object
    estimator.train(input_fn, steps=1)
    names = estimator.get_variable_names()
    previous, kernel = average, estimator.get_variable_value("dense/kernel")
    average = estimator.get_variable_value("dense/kernel/ExponentialMovingAverage")
    print("second train call: global step", estimator.get_variable_value("global_step"),
          "replica-named variables:", [n for n in names if "replica_" in n])
    assert estimator.get_variable_value("global_step") == 2 and not [n for n in names if "replica_" in n]
    assert np.allclose(average, DECAY * previous + (1 - DECAY) * kernel), (average, previous, kernel)
    print("average == 0.5 * previous average + 0.5 * kernel after the second step:", True)
finally:
    shutil.rmtree(model_dir)
# --8<-- [end:example]
