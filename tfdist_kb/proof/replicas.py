"""Provide 4 replicas before a snippet's own code runs.

Runs inside every TensorFlow environment (Python 3.7 to 3.11, TF 1.13 to 2.21),
so it uses nothing but the standard library and TensorFlow.

Order of preference, as the site promises:
1. 4 or more physical GPUs: the first 4 are used (more would make more replicas);
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
default settings stays a failure. The cross-device reduction is TensorFlow's own choice for the
devices it sees (NCCL only on physical GPUs: its selection code falls back to another reduction on
logical GPUs of one GPU and on CPUs); the witness records which one each strategy used.

TF 1.13 has no `tf.config`: there the 4 logical CPU devices are made the way `tf.config` makes them
later (TF 2.21's eager context turns its logical CPUs into `config.device_count["CPU"]`), by a default
`ConfigProto(device_count={"CPU": 4})` that every Session and the eager context get where their own
config does not set the CPU count. Only its CPU build is supported: a build with CUDA stops with one
line saying so.
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


def plan(gpus, n=REPLICAS):
    """What to do with a machine that has `gpus` physical GPUs (a count): a dict with
    `kind` ('physical GPUs', 'logical GPUs' or 'logical CPUs'), `visible` (how many physical GPUs
    stay visible to TensorFlow), `split` (the device split into `n` logical devices, or None) and
    `describe` (what the run record says)."""
    if gpus < 0 or n < 1:
        raise ValueError("plan(gpus=%r, n=%r): both must be counts" % (gpus, n))
    if gpus >= n:  # 4 real GPUs; more would give MirroredStrategy() more than n replicas
        return {"kind": "physical GPUs", "visible": n, "split": None, "describe": "%d physical GPUs" % n}
    if gpus:
        return {"kind": "logical GPUs", "visible": 1, "split": "GPU:0",
                "describe": "1 physical GPU split into %d logical GPUs" % n}
    return {"kind": "logical CPUs", "visible": 0, "split": "CPU:0",
            "describe": "%d logical CPU devices" % n}


def provide_replicas(n=REPLICAS, config=None):
    """Make `n` devices visible to TensorFlow and say how they were made (`plan`'s `describe`).

    `config` is the tuple `_config()` returns (the tests pass simulated device lists)."""
    if config is None and _before_tf_config():
        return _provide_cpus_by_config_proto(n)
    list_physical, set_logical, logical_config, set_visible = config or _config()
    gpus = list_physical("GPU")
    chosen = plan(len(gpus), n)
    if chosen["kind"] == "physical GPUs":
        if len(gpus) > n:
            set_visible(gpus[:n], "GPU")
            if config is None:
                _sessions_see_the_machine()
        return chosen["describe"]
    if gpus:
        set_visible(gpus[:1], "GPU")
        set_logical(gpus[0], [logical_config(memory_limit=GPU_MEMORY_MB) for _ in range(n)])
    else:
        set_logical(list_physical("CPU")[0], [logical_config() for _ in range(n)])
    if config is None:
        _sessions_see_the_machine()
    return chosen["describe"]


def _before_tf_config():
    """TF 1.13 and older: no tf.config, so no logical devices."""
    import tensorflow as tf

    return not hasattr(tf, "config")


def _provide_cpus_by_config_proto(n):
    """TF 1.13: `n` CPU devices for every Session and for the eager context, by their default config."""
    import tensorflow as tf
    from tensorflow.python.eager import context

    if tf.test.is_built_with_cuda():
        raise RuntimeError("replicas: TensorFlow %s has no tf.config; only its CPU build is supported here "
                           "(4 CPU devices through the default ConfigProto)" % tf.__version__)
    machine = tf.compat.v1.ConfigProto(device_count={"CPU": n})
    create_context = context.Context.__init__

    def __init__(self, config=None, *args, **kwargs):
        create_context(self, _with_machine(config, machine), *args, **kwargs)

    context.Context.__init__ = __init__
    existing = getattr(context, "_context", None)  # made before this ran, but not yet started
    if existing is not None and getattr(existing, "_context_handle", None) is None:
        existing._config = _with_machine(existing._config, machine)
    _sessions_see_the_machine(machine)
    return plan(0, n)["describe"]


def _with_machine(config, machine):
    """`config` (or none) with the machine's device counts where it sets none (a copy: the caller's stays)."""
    if config is None:
        return type(machine).FromString(machine.SerializeToString())
    config = type(config).FromString(config.SerializeToString())
    for kind, count in machine.device_count.items():
        if kind not in config.device_count:
            config.device_count[kind] = count
    return config


def _sessions_see_the_machine(machine=None):
    """Give every Session the devices the runtime has, as real hardware would be seen (`machine`: the
    config that a Session created without one gets; by default the eager runtime's, TF 1.14 on)."""
    from tensorflow.python.client import session
    from tensorflow.python.eager import context

    create = session.BaseSession.__init__

    def __init__(self, target="", graph=None, config=None):
        if machine is not None:  # TF 1.13: a Session has no default of its own to give it the machine
            config = _with_machine(config, machine)
        elif config is not None:
            runtime = context.context().config  # what a Session created without a config gets
            config = _with_machine(config, runtime)  # the caller's stays as it is
            ours, theirs = config.gpu_options, runtime.gpu_options
            if not ours.visible_device_list:
                ours.visible_device_list = theirs.visible_device_list
            if not ours.experimental.virtual_devices:
                ours.experimental.virtual_devices.extend(theirs.experimental.virtual_devices)
        create(self, target, graph, config)

    session.BaseSession.__init__ = __init__
