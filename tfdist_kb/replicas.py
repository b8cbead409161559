"""Provide 4 replicas before a snippet's own code runs.

Runs inside every TensorFlow environment (Python 3.7 to 3.11, TF 1.15 to 2.21),
so it uses nothing but the standard library and TensorFlow.

Order of preference, as the site promises:
1. 4 or more physical GPUs: nothing is changed;
2. 1 to 3 GPUs: the first GPU is split into 4 logical GPUs, the others are hidden;
3. no GPU: the CPU is split into 4 logical CPU devices.
With 2. or 3., `tf.distribute.MirroredStrategy()` with no device list mirrors over
the 4 logical devices on TF 2.x. Nothing else (cross-device ops, soft placement,
Keras settings) is touched: a failure under default settings stays a failure.
"""

REPLICAS = 4
GPU_MEMORY_MB = 4096  # per logical GPU when one GPU is split


def _config():
    import tensorflow as tf

    cfg = tf.config
    if hasattr(cfg, "set_logical_device_configuration"):
        return (cfg.list_physical_devices, cfg.set_logical_device_configuration,
                cfg.LogicalDeviceConfiguration, cfg.set_visible_devices)
    exp = cfg.experimental  # TF 1.15 and 2.0 name the same calls differently
    return (exp.list_physical_devices, exp.set_virtual_device_configuration,
            exp.VirtualDeviceConfiguration, exp.set_visible_devices)


def provide_replicas(n=REPLICAS):
    """Make `n` devices visible to TensorFlow and return how they were made."""
    list_physical, set_logical, logical_config, set_visible = _config()
    gpus = list_physical("GPU")
    if len(gpus) >= n:
        return "%d physical GPUs" % len(gpus)
    if gpus:
        set_visible(gpus[0], "GPU")
        set_logical(gpus[0], [logical_config(memory_limit=GPU_MEMORY_MB)] * n)
        return "1 physical GPU split into %d logical GPUs" % n
    cpus = list_physical("CPU")
    set_logical(cpus[0], [logical_config()] * n)
    return "%d logical CPU devices" % n
