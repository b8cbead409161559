"""The 4-device proof: what a snippet really ran on, recorded while it runs, and judged after.

`Witness.install()` (called by the child before the snippet's first line) wraps three
TensorFlow constructors, without changing what they do:
- every `tf.distribute` strategy the snippet creates or copies (class, replica count, devices,
  and, at the end, the cross-device reduction it used);
- every replica context a strategy enters, i.e. every replica whose function really ran
  (Keras `fit`, `strategy.run`, an Estimator's `model_fn`), with the replica id;
- every TF 1 `Session` (an Estimator's too) and the devices it sees.
The record is written to a JSON file at each new fact, so a run that is stopped (a hang) still
leaves what it saw. `problems()` then says why a record does not prove that 4 replicas ran
on 4 distinct devices that really exist (not, say, 4 replica graphs soft-placed onto CPU:0).

Runs inside every TensorFlow environment (Python 3.7+, TF 1.13 to 2.21): standard library only,
and `problems()` needs no TensorFlow.
"""
import json
import os
import re
import threading

REPLICAS = 4


def file_of(result):
    """The witness's file beside a run's result file (RESULT.json -> RESULT.json.witness)."""
    return str(result) + ".witness"


_DEVICE = re.compile(r"(?:device:)?(CPU|GPU|TPU|XLA_CPU|XLA_GPU):(\d+)$", re.IGNORECASE)


def short(device):
    """'/job:localhost/replica:0/task:0/device:CPU:1' or '/cpu:1' -> 'CPU:1' (None if not a device)."""
    found = _DEVICE.search(device or "")
    return "%s:%d" % (found.group(1).upper(), int(found.group(2))) if found else None


def _tf_config_replica_tasks():
    """How many tasks hold replicas (chief and workers) in the cluster TF_CONFIG names now, or None."""
    import os

    try:
        cluster = json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster") or {}
        return sum(len(cluster.get(job) or ()) for job in ("chief", "worker")) or None
    except (ValueError, TypeError, AttributeError):
        return None


def _tf_config_task():
    """The task TF_CONFIG gives this process ('worker:1'), or None: what the task itself was told."""
    import os

    try:
        task = json.loads(os.environ.get("TF_CONFIG") or "{}").get("task") or {}
        return "%s:%d" % (task["type"], int(task["index"])) if task else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class Witness(object):
    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()  # replica contexts are entered from one thread per replica
        self.strategies = []  # kept alive so that ids stay unique for the run
        self.record = {"strategies": [], "ran": {}, "sessions": [], "runtime_devices": None}
        self.record["tf_config_task"] = _tf_config_task()

    def install(self):
        from tensorflow.python.client import session
        from tensorflow.python.distribute import distribute_lib

        strategy_base = (getattr(distribute_lib, "StrategyBase", None)  # TF < 2.2: Strategy; TF 1.13: DistributionStrategy
                         or getattr(distribute_lib, "Strategy", None) or distribute_lib.DistributionStrategy)
        context_base = getattr(distribute_lib, "ReplicaContextBase", distribute_lib.ReplicaContext)
        self._after(strategy_base, self._strategy_created)
        if "__deepcopy__" in vars(strategy_base):  # an Estimator runs a deep copy of its strategy
            copy = strategy_base.__deepcopy__

            def __deepcopy__(strategy, memo):
                result = copy(strategy, memo)
                self._strategy_created(result)
                return result

            strategy_base.__deepcopy__ = __deepcopy__
        self._after(context_base, self._replica_entered)
        self._after(session.BaseSession, self._session_created)
        try:  # a task that serves a cluster (a parameter-server cluster's workers): its server's task and devices
            from tensorflow.python.training import server_lib

            self._after(server_lib.Server, self._server_started)
        except (ImportError, AttributeError):
            pass
        # a strategy whose constructor raises: a MultiWorkerMirroredStrategy ("must be configured at
        # program startup"), a ParameterServerStrategy that cannot reach its cluster
        self._on_failure("collective_all_reduce_strategy", "CollectiveAllReduceExtended", "MultiWorkerMirroredStrategy")
        self._on_failure("parameter_server_strategy_v2", "ParameterServerStrategyV2", "ParameterServerStrategyV2")
        if self.record["tf_config_task"]:  # a task of a cluster: a MirroredStrategy that read its TF_CONFIG
            # in graph mode and refused the cluster ("In-graph multi-worker training ... not supported")
            self._on_failure("mirrored_strategy", "MirroredExtended", "MirroredStrategy", exact=True)
        try:  # the steps a ClusterCoordinator schedules: which worker executed each (TF 2.4+)
            from tensorflow.python.distribute.coordinator import cluster_coordinator

            closure = cluster_coordinator.Closure
            execute_on = closure.execute_on

            def execute(closure_self, worker, *args, **kwargs):
                result = execute_on(closure_self, worker, *args, **kwargs)
                if type(closure_self) is closure:  # a step; a ResourceClosure only builds a dataset or a resource
                    self._scheduled(worker)
                return result

            closure.execute_on = execute
        except (ImportError, AttributeError):
            pass
        self.save()

    def _on_failure(self, module, name, label, exact=False):
        """Record a strategy whose constructor (`name`'s, in tensorflow.python.distribute.`module`) raises;
        `exact`: only for `name` itself, not for the subclasses that call its constructor."""
        try:
            from importlib import import_module

            cls = getattr(import_module("tensorflow.python.distribute." + module), name)
        except (ImportError, AttributeError):
            return
        original = cls.__init__

        def __init__(instance, *args, **kwargs):
            if exact and type(instance) is not cls:
                return original(instance, *args, **kwargs)
            self._constructing(label)
            try:
                original(instance, *args, **kwargs)
            except Exception as error:
                self._strategy_failed(error, label)
                raise
            finally:
                self._constructing(None)

        cls.__init__ = __init__  # a task stopped before its first strategy still leaves what it was told

    @staticmethod
    def _after(cls, observe):
        original = cls.__init__

        def __init__(self, *args, **kwargs):
            original(self, *args, **kwargs)
            observe(self)

        cls.__init__ = __init__

    def _index(self, strategy):
        if strategy is None:
            return None
        for i, known in enumerate(self.strategies):
            if known is strategy:
                return i
        return None

    def _strategy_created(self, strategy):
        if type(strategy).__name__.startswith("_Default"):  # TF's own no-strategy strategy
            return
        self.strategies.append(strategy)
        extended = strategy.extended
        seen = {
            "class": type(strategy).__name__,
            "replicas": int(strategy.num_replicas_in_sync),
            "devices": [str(d) for d in getattr(extended, "worker_devices", ())],
        }
        if seen["class"].startswith("MultiWorkerMirrored") or seen["class"].startswith("CollectiveAllReduce"):
            seen["told_tasks"] = _tf_config_replica_tasks()  # the cluster this task was told when it made it
        if seen["class"].startswith("ParameterServerStrategy"):  # its tasks: how many workers, how many ps
            resolver = getattr(strategy, "_cluster_resolver", None)  # the TF 2 strategy keeps its resolver
            spec = resolver.cluster_spec() if resolver is not None else getattr(extended, "_cluster_spec", None)
            if spec:  # the Estimator (v1) strategy keeps only the cluster it was given (no cluster: None)
                seen["cluster"] = {job: len(tasks) for job, tasks in spec.as_dict().items()}
        self.record["strategies"].append(seen)
        self.save()

    def _scheduled(self, worker):
        """A step a ClusterCoordinator dispatched to `worker` returned: that worker ran it."""
        with self._lock:
            ran = self.record.setdefault("scheduled", [])
            name = "worker:%d" % worker.worker_index
            if name not in ran:
                ran.append(name)
                ran.sort()
                self._save(False)

    def _constructing(self, label):
        """A strategy's constructor is running (`label`) or has returned (None): a task stopped inside
        it (TF 2.4-2.5's MultiWorkerMirroredStrategy waits there for every worker) leaves that."""
        with self._lock:
            if label:
                self.record["constructing"] = label
            else:
                self.record.pop("constructing", None)
            self._save(False)

    def _strategy_failed(self, error, label):
        """A strategy that never came to exist: its constructor raised `error`."""
        self.record["strategies"].append({"class": label, "replicas": None, "devices": [],
                                          "raised": type(error).__name__})
        self.strategies.append(None)
        self.save()

    def _replica_entered(self, context):
        index = self._index(getattr(context, "_strategy", None) or getattr(context, "_distribution_strategy", None))  # TF 1.13
        if index is None:
            return
        replica = context._replica_id_in_sync_group
        if not isinstance(replica, int):  # TF 1.15 passes a constant tensor
            from tensorflow.python.framework import tensor_util

            value = tensor_util.constant_value(replica)
            replica = int(value) if value is not None else -1
        with self._lock:
            ran = self.record["ran"].setdefault(str(index), [])
            if replica not in ran:
                ran.append(replica)
                ran.sort()
                self._save(False)

    def _server_started(self, server):
        """A `tf.distribute.Server` of this process: the task it serves and the devices of the process
        (physical ones: listing them starts no runtime), the devices the cluster's steps can run on."""
        seen = {"task": None, "devices": None}
        try:  # never let the proof change the snippet's outcome
            definition = server.server_def
            seen["task"] = "%s:%d" % (definition.job_name, definition.task_index)
            from tensorflow.python.eager import context

            seen["devices"] = sorted(d.name for d in context.context().list_physical_devices())
        except Exception as error:
            seen["error"] = repr(error)
        with self._lock:
            self.record.setdefault("servers", []).append(seen)
            self._save(False)

    def _session_created(self, sess):
        self.record["sessions"].append(sorted(d.name for d in sess.list_devices()))
        self.save()

    def runtime_devices(self, initialise=False):
        """The devices of the eager runtime (what tf.config lists), once it has started."""
        from tensorflow.python.eager import context

        ctx = context.context()
        started = getattr(ctx, "_initialized", None)
        if started is None:  # TF 2.0 has no such flag: its runtime exists once it has a handle
            started = getattr(ctx, "_context_handle", None) is not None
        if not initialise and not started:
            return None
        if not hasattr(ctx, "list_logical_devices"):  # TF 1.13: the names, once its handle is made
            ctx._handle  # starts the runtime (what its first eager op does)
            return sorted(ctx.devices())
        return sorted(d.name for d in ctx.list_logical_devices())

    def save(self, final=False):
        with self._lock:
            if final:
                for strategy, seen in zip(self.strategies, self.record["strategies"]):
                    seen["reduction"] = reduction(strategy)
            self._save(final)

    def _save(self, final):
        try:
            self.record["runtime_devices"] = self.runtime_devices(initialise=final)
        except Exception as error:  # never let the proof change the snippet's outcome
            self.record["runtime_devices_error"] = repr(error)
        with open(self.path + ".part", "w") as handle:  # whole or absent: a task may be stopped mid-write
            json.dump(self.record, handle)
        os.replace(self.path + ".part", self.path)


def reduction(strategy):
    """How a strategy all-reduces between its replicas: the class of its cross-device ops, the one
    given to it or else the one TensorFlow chose for its devices ('NcclAllReduce',
    'ReductionToOneDevice', ...), with the implementation a collective one uses
    ('CollectiveAllReduce (RING)' on CPUs and on logical GPUs, '(NCCL)' on physical GPUs, TF 2.21).
    None where the strategy has none (one device) or it cannot be read without choosing it."""
    if strategy is None:  # its constructor raised
        return None
    extended = strategy.extended
    try:
        for name in ("_cross_device_ops", "_inferred_cross_device_ops"):
            chosen = getattr(extended, name, None)
            if chosen is not None:
                options = getattr(chosen, "_options", None)
                implementation = getattr(getattr(options, "implementation", None), "name", None)
                return type(chosen).__name__ + (" (%s)" % implementation if implementation else "")
    except Exception:  # never let the proof change the snippet's outcome
        return None
    return None


def problems(record, outcome):
    """Why `record` does not prove 4 replicas on 4 distinct, existing devices ([] if it does).

    `outcome` is the run's: a passing run must have run a replica function on all 4 replicas; a
    run that raised or was stopped must at least have created its strategy on 4 such devices."""
    if not record:
        return ["no device record: the run ended before the runner could observe it"]
    found = []
    strategies = record.get("strategies") or []
    if not strategies:
        return ["no tf.distribute strategy was created: nothing ran on replicas"]
    runtime = record.get("runtime_devices")
    sessions = record.get("sessions") or []
    if runtime is None and not sessions:
        found.append("cannot tell which devices exist: neither the eager runtime nor a Session started")
    for i, session in enumerate(sessions):
        have = sorted(filter(None, map(short, session)))
        if len(have) < REPLICAS:
            found.append("Session %d sees only %s, not %d devices" % (i + 1, ", ".join(have) or "nothing", REPLICAS))
    for s in strategies:
        if s.get("raised"):
            found.append("a %s raised %s in its constructor: a process of its own has no replicas to show"
                         % (s["class"], s["raised"]))
            continue
        devices = [short(d) or d for d in s["devices"]]
        name = "%s over %s" % (s["class"], ", ".join(devices) or "no devices")
        if s["replicas"] != REPLICAS or len(set(devices)) != REPLICAS:
            found.append("%s: %d replica(s) on %d distinct device(s), not %d on %d"
                         % (name, s["replicas"], len(set(devices)), REPLICAS, REPLICAS))
            continue
        where = [("the eager runtime", runtime)] if runtime is not None else []
        where += [("Session %d" % (i + 1), session) for i, session in enumerate(sessions)]
        for label, listed in where:
            missing = [d for d in devices if d not in set(map(short, listed))]
            if missing:
                found.append("%s: %s does not have %s (ops would be soft-placed onto another device)"
                             % (name, label, ", ".join(missing)))
    if outcome == "passed":
        full = [i for i, ran in (record.get("ran") or {}).items() if sorted(ran) == list(range(REPLICAS))]
        if not full:
            seen = {strategies[int(i)]["class"] + " #" + i: ran for i, ran in (record.get("ran") or {}).items()}
            found.append("no replica function ran on all %d replicas (replica ids seen: %s); a passing snippet "
                         "must run a step (strategy.run, model.fit, estimator.train)" % (REPLICAS, seen or "none"))
    return found


def spanned(record):
    """The devices of every strategy the run created ('CPU:0', ...), in order: where its replicas
    were when a run raised or hung (problems() has checked each strategy has 4 distinct ones)."""
    out = []
    for s in record.get("strategies") or []:
        for d in s.get("devices") or ():
            if (short(d) or d) not in out:
                out.append(short(d) or d)
    return out


def ran_on(record):
    """The devices of the strategies whose replicas all ran ('CPU:0', ...), for the evidence."""
    out = []
    for i, ran in sorted((record.get("ran") or {}).items()):
        if sorted(ran) == list(range(REPLICAS)):
            for d in record["strategies"][int(i)]["devices"]:
                if short(d) not in out:
                    out.append(short(d))
    return out


# ---- a local cluster (tfdist_kb.proof.cluster): one witness per task, judged together ----

_PLACED = re.compile(r"/job:(?P<job>[a-z_]+)/replica:\d+/task:(?P<task>\d+)/")


def placed(device):
    """'/job:worker/replica:0/task:1/device:CPU:0' -> 'worker:1/CPU:0': a device of a cluster, named
    by the task that has it; a device of one process ('/job:localhost/...', '/cpu:0') by short()."""
    found = _PLACED.search(device or "")
    if not found or found.group("job") == "localhost":
        return short(device)
    return "%s:%s/%s" % (found.group("job"), found.group("task"), short(device))


def _stopped_constructing(record):
    """A task of a run that raised, stopped by the runner inside its first strategy's constructor (a
    MultiWorkerMirroredStrategy of TF 2.4-2.5 waits there for the whole cluster, which a task that raised
    never joins): that strategy, as far as it came. Any other record as it is."""
    if not record or record.get("strategies") or not record.get("constructing"):
        return record
    return dict(record, strategies=[{"class": record["constructing"], "replicas": None, "devices": [],
                                     "stopped": True}])


def _as_judged(tasks, outcome):
    """The tasks' records as a cluster run is judged (its proof, its ran_on): in a run that raised, a
    task stopped inside its first strategy's constructor shows that strategy (_stopped_constructing)."""
    if outcome != "raised":
        return tasks
    return [(name, _stopped_constructing(record)) for name, record in tasks]


def cluster_problems(tasks, outcome):
    """Why the witnesses of a cluster's tasks (a list of (task name, record or None)) do not prove that
    4 replicas in all ran on 4 distinct devices ([] if they do): in every task, every strategy has 4
    replicas in sync, on devices of that task which its runtime really has, named by the task (a task
    that fell back to a strategy of its own process has 1 replica, or names `/job:localhost`); the n-th
    strategy of every task together spans 4 distinct devices (two tasks given the same index name the
    same ones); a passing run ran a replica function on all 4 replica ids across the tasks."""
    found = []
    serving = any(name.startswith("ps:") for name, _ in tasks)  # its workers and ps create no strategy
    tasks = _as_judged(tasks, outcome)
    for name, record in tasks:
        if not record or not record.get("strategies") and not (serving and not name.startswith("chief:")):
            found.append("%s: %s" % (name, "no device record" if not record else "created no tf.distribute strategy"))
    told = [(name, record.get("tf_config_task")) for name, record in tasks if record]
    for name, seen in told:
        if seen != name:
            found.append("%s: its TF_CONFIG made it %s" % (name, seen))
    for seen in sorted({s for _, s in told if [t for _, t in told].count(s) > 1}):
        found.append("%d tasks were told by TF_CONFIG that they are %s" % ([t for _, t in told].count(seen), seen))
    if found and outcome == "passed":
        return found
    if serving:
        return found + _ps_problems(tasks, outcome)
    missing = bool(found)
    names = [name for name, _ in tasks]
    tasks = [(name, record) for name, record in tasks if record and record.get("strategies")]
    if not tasks:
        return found
    counts = [len(record["strategies"]) for _, record in tasks]
    if len(set(counts)) != 1 and outcome == "passed":
        return ["the tasks created different numbers of strategies: %s"
                % ", ".join("%s %d" % (n, len(r["strategies"])) for n, r in tasks)]
    for k in range(max(counts)):
        union, everywhere, in_graph = [], not missing, set()
        for name, record in tasks:
            if k >= len(record["strategies"]):
                everywhere = False  # a task that raised before it: judged by what it did create
                continue
            s = record["strategies"][k]
            runtime = record.get("runtime_devices")
            if s.get("stopped"):  # stopped inside its constructor once another task had raised: the
                union.append(name + "/CPU:0")  # replica it was to be is its CPU, as a plain process has it
                continue
            if s.get("raised"):
                # its constructor raised (the run's documented failure): the replica it was to be
                # is the task's CPU, as the runtime has it
                if outcome != "raised":
                    found.append("%s: a %s raised %s in its constructor, but the run %s" % (name, s["class"], s["raised"], outcome))
                elif not runtime or "CPU:0" not in set(map(short, runtime)):
                    found.append("%s: the runtime of the task has no CPU:0 (%s)" % (name, runtime))
                else:
                    union.append(name + "/CPU:0")
                continue
            devices = [placed(d) or d for d in s["devices"]]
            label = "%s: %s over %s" % (name, s["class"], ", ".join(devices) or "no devices")
            if outcome == "raised" and _over_the_cluster(devices, names):
                # in-graph replication (a single-machine strategy that read TF_CONFIG in graph mode): one
                # replica on a device of each task; what the run documents is that a task cannot reach
                # the others' devices, so they are counted once, as the cluster's
                if s["replicas"] != REPLICAS:
                    found.append("%s: %d replica(s) in sync, not %d" % (label, s["replicas"], REPLICAS))
                in_graph.add(tuple(sorted(devices)))
                continue
            # a raised run whose task was told another cluster (the documented mistake) counts the replicas
            # of that cluster; its own device is still one of the 4 below
            told_other = outcome == "raised" and s.get("told_tasks") not in (None, REPLICAS) \
                and s["replicas"] == s["told_tasks"]
            if s["replicas"] != REPLICAS and not told_other:
                found.append("%s: %d replica(s) in sync, not %d" % (label, s["replicas"], REPLICAS))
            foreign = [d for d in devices if not d.startswith(name + "/")]
            if foreign:
                found.append("%s: not devices of task %s" % (label, name))
            if runtime is None:
                found.append("%s: cannot tell which devices exist: the eager runtime did not start" % name)
            else:
                have = set(map(short, runtime))
                missing = [d for d in devices if d.split("/")[-1] not in have]
                if missing:
                    found.append("%s: the runtime does not have %s" % (label, ", ".join(missing)))
            union += devices
        for devices in sorted(in_graph):  # the same cluster in every task, or its devices repeat below
            union += devices
        if everywhere and len(set(union)) != REPLICAS or len(set(union)) != len(union):
            found.append("strategy %d spans %d distinct device(s) across the tasks (%s), not %d"
                         % (k + 1, len(set(union)), ", ".join(union), REPLICAS))
    if outcome == "passed":
        full = [k for k in range(len(tasks[0][1]["strategies"]))
                if sorted(set(sum(((r.get("ran") or {}).get(str(k), []) for _, r in tasks), []))) == list(range(REPLICAS))]
        if not full:
            found.append("no strategy ran a replica function on all %d replica ids across the tasks (seen: %s)"
                         % (REPLICAS, {n: r.get("ran") for n, r in tasks}))
    return found


def _over_the_cluster(devices, names):
    """Whether `devices` (task-named) are one device of each of the tasks `names`, 4 in all: the replicas
    of an in-graph strategy spanning the whole cluster."""
    return len(devices) == REPLICAS == len(names) and sorted(d.split("/")[0] for d in devices) == sorted(names)


def _ps_problems(tasks, outcome):
    """A parameter-server cluster: the chief is the coordinator, the workers and parameter servers only
    serve (they create no strategy). The proof is the coordinator's: its ParameterServerStrategy spans
    4 workers and at least one parameter server, its runtime reaches the CPU of each of the 4 workers
    (4 distinct devices that exist), and in a passing run it traced a replica function and the steps
    it scheduled were executed by all 4 workers."""
    chiefs = [(name, record) for name, record in tasks if name.startswith("chief:")]
    if len(chiefs) != 1 or not chiefs[0][1]:
        return ["a parameter-server cluster is proven by its chief (the coordinator): %s"
                % ("it has no device record" if chiefs else "it has no chief")]
    name, record = chiefs[0]
    found = ["%s: a task that only serves created a %s" % (n, r["strategies"][0]["class"])
             for n, r in tasks if n != name and r and r.get("strategies")]
    strategies = [s for s in record.get("strategies") or [] if s["class"].startswith("ParameterServerStrategy")]
    if not strategies:
        return found + ["%s created no ParameterServerStrategy" % name]
    made = [s for s in strategies if not s.get("raised")]
    if not made and outcome != "raised":
        found.append("%s: its ParameterServerStrategy raised %s in its constructor, but the run %s"
                     % (name, strategies[0]["raised"], outcome))
    for s in made:
        jobs = s.get("cluster") or {}
        if jobs.get("worker") != REPLICAS or not jobs.get("ps"):
            found.append("%s: its %s spans %s, not %d workers and at least one parameter server"
                         % (name, s["class"], ", ".join("%d %s" % (n, j) for j, n in sorted(jobs.items())) or "nothing",
                            REPLICAS))
    if made:
        have = set(filter(None, map(placed, record.get("runtime_devices") or [])))
        missing = [d for d in _ps_workers() if d not in have]
        if missing:
            found.append("%s: its runtime does not reach %s" % (name, ", ".join(missing)))
    if outcome == "passed":
        ran = record.get("scheduled") or []
        if ran != ["worker:%d" % i for i in range(REPLICAS)]:
            found.append("the steps %s scheduled were executed by %s, not by all %d workers"
                         % (name, ", ".join(ran) or "no worker", REPLICAS))
        if not any((record.get("ran") or {}).values()):
            found.append("%s traced no replica function (strategy.run, model.fit)" % name)
    return found


def _served_cpus(tasks):
    """'worker:1/CPU:0' for each task that started a server as the task TF_CONFIG made it and whose
    process has a CPU:0."""
    out = []
    for name, record in tasks:
        for server in (record or {}).get("servers") or []:
            if (server.get("task") == name == record.get("tf_config_task")
                    and "CPU:0" in set(map(short, server.get("devices") or []))):
                out.append(name + "/CPU:0")
    return out


def _ps_workers():
    return ["worker:%d/CPU:0" % i for i in range(REPLICAS)]


def cluster_ran_on(tasks, outcome):
    """The devices (task-named) of the strategies whose replicas all ran (passed), or of every strategy
    (a strategy whose constructor raised, or a task stopped inside it once another had raised: the
    task's CPU)."""
    if any(name.startswith("ps:") for name, _ in tasks):  # the workers that executed the coordinator's steps
        chief = dict(tasks).get("chief:0") or {}
        if outcome == "passed":
            return ["%s/CPU:0" % w for w in chief.get("scheduled") or []]
        # a run that raised or hung: the workers' CPUs that exist, as the chief's runtime reached them or,
        # where the chief failed before it reached its cluster, as each worker's own server has them
        have = set(filter(None, map(placed, chief.get("runtime_devices") or [])))
        have.update(_served_cpus(tasks))
        return [d for d in _ps_workers() if d in have]
    tasks = _as_judged(tasks, outcome)
    out = []
    for k in range(max(len(r["strategies"]) for _, r in tasks)):
        ran = sorted(set(sum(((r.get("ran") or {}).get(str(k), []) for _, r in tasks), [])))
        if outcome == "passed" and ran != list(range(REPLICAS)):
            continue
        for name, record in tasks:
            if k < len(record["strategies"]):
                s = record["strategies"][k]
                for d in ([name + "/CPU:0"] if s.get("raised") or s.get("stopped") else map(placed, s["devices"])):
                    if d not in out:
                        out.append(d)
    return sorted(out)
