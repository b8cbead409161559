# /// tfdist
# [expect]
# default = { raises = "ImportError", match = "cannot import name 'multi_gpu_model' from 'tensorflow\\.keras\\.utils'" }
# "tf2.1.0" = { raises = "ValueError", match = "To call `multi_gpu_model` with `gpus=4`, we expect the following devices to be available" }
# "tf1.15" = { not-applicable = "TF 1.15 still has multi_gpu_model, which wants physical GPUs (none here); its MirroredStrategy() counts GPUs only (1 replica here)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

devices = tf.distribute.MirroredStrategy().num_replicas_in_sync  # this machine's devices: 4
from tensorflow.keras.utils import multi_gpu_model  # Keras' way to use them before tf.distribute

inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
parallel = multi_gpu_model(model, gpus=devices)  # a copy of the model per GPU, the batch split between them
parallel.compile(optimizer="sgd", loss="mse")
# --8<-- [end:example]
