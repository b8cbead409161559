"""Provide 4 replicas before a snippet's own code runs.

Runs inside every TensorFlow environment (Python 3.7 to 3.11, TF 1.15 to 2.21),
so it uses nothing but the standard library and TensorFlow.

Order of preference, as the site promises:
1. 4 or more physical GPUs: nothing is changed;
2. 1 to 3 GPUs: the first GPU is split into 4 logical GPUs, the others are hidden;
3. no GPU: the CPU is split into 4 logical CPU devices.
With 2. or 3., `tf.distribute.MirroredStrategy()` with no device list mirrors over
the 4 logical devices from TF 2.1 on.

Logical devices are set on TensorFlow's runtime, which a TF 1-style `Session` sees only when
it is created without a config of its own. An Estimator, and any code that passes a
`ConfigProto`, would see a single CPU. On a machine with 4 GPUs every session sees them, whatever
its config says, so every session is given the machine's devices here too: the device counts
and logical-GPU layout the runtime has, added to its config where the config does not set them.
Nothing else (cross-device ops, soft placement, Keras settings) is touched: a failure under
default settings stays a failure.
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
        _sessions_see_the_machine()
        return "1 physical GPU split into %d logical GPUs" % n
    cpus = list_physical("CPU")
    set_logical(cpus[0], [logical_config()] * n)
    _sessions_see_the_machine()
    return "%d logical CPU devices" % n


def _sessions_see_the_machine():
    """Give every Session the devices the runtime has, as real hardware would be seen."""
    from tensorflow.python.client import session
    from tensorflow.python.eager import context

    create = session.BaseSession.__init__

    def __init__(self, target="", graph=None, config=None):
        if config is not None:
            machine = context.context().config  # what a Session created without a config gets
            config = type(config).FromString(config.SerializeToString())  # the caller's stays as it is
            for kind, count in machine.device_count.items():
                if kind not in config.device_count:
                    config.device_count[kind] = count
            ours, theirs = config.gpu_options, machine.gpu_options
            if not ours.visible_device_list:
                ours.visible_device_list = theirs.visible_device_list
            if not ours.experimental.virtual_devices:
                ours.experimental.virtual_devices.extend(theirs.experimental.virtual_devices)
        create(self, target, graph, config)

    session.BaseSession.__init__ = __init__
