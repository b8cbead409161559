# /// tfdist
# [expect]
# default = "passes"
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
run = strategy.run if hasattr(strategy, "run") else strategy.experimental_run_v2  # TF 1.x name
dataset = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype="float32")).batch(8)


@tf.function
def step(batch):
    return run(lambda x: tf.reduce_sum(tf.square(x)), args=(batch,))


loss = step(next(iter(strategy.experimental_distribute_dataset(dataset))))  # a PerReplica
metric = tf.keras.metrics.Mean()
uses = {  # what a loop typically does with a step's loss
    "loss + loss": lambda: loss + loss,
    "0.0 + loss": lambda: 0.0 + loss,
    "loss / 2": lambda: loss / 2,
    "f'{loss:.1f}'": lambda: f"{loss:.1f}",
    "float(loss)": lambda: float(loss),
    "np.mean(loss)": lambda: np.mean(loss),
    "loss.numpy()": lambda: loss.numpy(),
    "loss[0]": lambda: loss[0],
    "list(loss)": lambda: list(loss),
    "loss < 1.0": lambda: loss < 1.0,
    "tf.reduce_mean(loss)": lambda: tf.reduce_mean(loss),
    "metric.update_state(loss)": lambda: metric.update_state(loss),
}
for name, use in uses.items():
    try:
        use()
    except Exception as error:  # each one is refused; print the first line of its message
        print(f"{name:26} {type(error).__name__}: {str(error).splitlines()[0][:90]}")
    else:
        raise AssertionError(f"{name} worked on a PerReplica")
# --8<-- [end:example]
