# /// tfdist
# [expect]
# default = { raises = "AttributeError", match = "'DistributedDataset' object has no attribute 'map'" }
# "tf1.15" = { raises = "NotImplementedError", match = "`class_weight` is currently not supported when using tf\\.distribute\\.Strategy" }
# ///
# --8<-- [start:example]
import numpy as np
import tensorflow as tf

devices = None  # every GPU, or else the CPU's devices
if tf.__version__.startswith("1."):  # TF 1.x: run eagerly as TF 2 does, and name the devices,
    tf.compat.v1.enable_eager_execution()  # because its MirroredStrategy() counts GPUs only
    config = tf.config.experimental
    devices = [d.name for d in config.list_logical_devices("GPU") or config.list_logical_devices("CPU")]

strategy = tf.distribute.MirroredStrategy(devices)
x = np.linspace(-1, 1, 32, dtype="float32").reshape(16, 2)
y = (np.arange(16) % 2).astype("int64")  # two classes; class 1 should count three times as much
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax", input_shape=(2,))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy")

train_ds = strategy.experimental_distribute_dataset(dataset)  # distributed by hand, then given to fit
model.fit(train_ds, epochs=2, steps_per_epoch=2, class_weight={0: 1.0, 1: 3.0}, verbose=0)
# --8<-- [end:example]
