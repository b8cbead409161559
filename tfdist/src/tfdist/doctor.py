"""`doctor(strategy, model, optimizer)`: the silent failures of tf.distribute that no error links to.

Some mistakes of the knowledge base raise nothing: slots built outside the scope, a first
`apply_gradients` with no strategy active, a model revived without its classes. Training goes on
and the 4 copies of a weight drift apart, or every replica reports replica 0. The doctor inspects
the objects themselves, after the fact, and returns one finding per problem, each naming the
entry that explains it (`CHECKS`, the one table that ties a check to its entry).

TensorFlow is imported when `doctor()` is called, never when this module is imported. Tested on
TensorFlow 2.4 to 2.21 with Keras 2 (tf.keras), tf-keras and Keras 3; TensorFlow 1.x is refused.
"""
from __future__ import annotations

from . import matcher

# The one table: check -> the entry that explains it.
#   "other-strategy": a variable of another strategy ("Mixing different tf.distribute.Strategy
#     objects"): TFD007.
#   "replica-devices": no entry is about a strategy's devices; the site's verification page is,
#     so the finding carries the reserved pseudo-id "verification" and that page's URL.
CHECKS = {
    "plain-model-variable": "TFD002",
    "other-strategy": "TFD007",
    "plain-slot": "TFD001",
    "optimizer-strategy": "TFD001",
    "optimizer-not-built": "TFD001",
    "replicas-disagree": "TFD003",
    "copies-malformed": "TFD001",
    "replica-devices": "verification",
    "revived-model": "TFD004",
    "replica-statistics": "TFD015",
}
PAGES = {"verification": "verification/"}  # pseudo-ids and their page, relative to the site
SEVERITIES = ("warning", "error")  # in increasing order
TOLERANCE = 1e-6  # copies of a mirrored variable differ when |a - b| > TOLERANCE * (1 + |a|)
SHOWN = 5  # variable names listed in one finding before "and N more"
MINIMUM_TF = (2, 4)


class DoctorError(Exception):
    """Raised by `doctor(..., raise_on=...)`: the findings at or above the threshold; `.findings`."""

    def __init__(self, findings):
        self.findings = findings
        Exception.__init__(self, "tfdist.doctor: {} finding(s):\n{}".format(len(findings), findings))


class Finding(dict):
    """One problem: a dict with `id` (the entry, or "verification"), `severity` ("error" or
    "warning"), `message` (naming the variables or classes) and `url`; also as attributes."""

    id = property(lambda self: self["id"])
    severity = property(lambda self: self["severity"])
    message = property(lambda self: self["message"])
    url = property(lambda self: self["url"])

    def __str__(self):
        return "{} {}: {} ({})".format(self["id"], self["severity"], self["message"], self["url"])


class Findings(list):
    """The doctor's answer: a list of Finding; printed, one line per finding."""

    def __str__(self):
        return "\n".join(str(f) for f in self) if self else "tfdist.doctor: no findings"


def _url(entry):
    """The entry's URL, as tfdist's other links are built: $TFDIST_BASE_URL or the data's base_url."""
    try:
        data = matcher.load()
    except matcher.DataError:
        data = {"entries": []}
    page = PAGES.get(entry)
    if page is None:
        known = [e.get("path") for e in data["entries"] if isinstance(e, dict) and e.get("id") == entry]
        page = known[0] if known and known[0] else "e/{}/".format(entry)
    return matcher.base_url(data) + page


def _finding(check, severity, message):
    entry = CHECKS[check]
    return Finding(id=entry, severity=severity, message=message, url=_url(entry))


# ---------------------------------------------------------------- arguments


def _import_tensorflow():
    try:
        import tensorflow as tf
    except ImportError as error:
        raise RuntimeError("tfdist.doctor needs TensorFlow, which cannot be imported here: {}".format(error))
    parts = []
    for part in tf.__version__.split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    if tuple(parts) < MINIMUM_TF:
        raise RuntimeError("tfdist.doctor needs TensorFlow {}.{} or later (tested up to 2.21); this is TensorFlow "
                           "{}, whose tf.distribute it does not inspect".format(MINIMUM_TF[0], MINIMUM_TF[1],
                                                                               tf.__version__))
    return tf


def _describe(value):
    """What a wrong argument is, in words: 'None', 'an optimizer (Adam)', 'a Keras model (Functional)'."""
    if value is None:
        return "None"
    kind = type(value).__name__
    if hasattr(value, "apply_gradients"):
        return "an optimizer ({})".format(kind)
    if hasattr(value, "extended") and hasattr(value, "num_replicas_in_sync"):
        return "a strategy ({})".format(kind)
    if hasattr(value, "trainable_variables") and hasattr(value, "layers"):
        return "a Keras model ({})".format(kind)
    if hasattr(value, "trainable_variables"):
        return "a layer or module ({})".format(kind)
    return "{} {!r}".format(kind, value)[:120]


def _check_arguments(tf, strategy, model, optimizer, raise_on):
    if raise_on is not None and raise_on not in SEVERITIES:
        raise ValueError("tfdist.doctor: raise_on must be None, 'warning' or 'error', not {!r}".format(raise_on))
    if not isinstance(strategy, tf.distribute.Strategy):
        if isinstance(strategy, tf.compat.v1.distribute.Strategy):
            raise TypeError("tfdist.doctor: strategy is a TF 1 strategy ({}, tf.compat.v1.distribute); the doctor "
                            "checks TF 2 strategies: create tf.distribute.{}() instead".format(
                                type(strategy).__name__, type(strategy).__name__.replace("V1", "")))
        raise TypeError("tfdist.doctor: strategy must be a tf.distribute.Strategy (such as "
                        "tf.distribute.MirroredStrategy()), not {}; call tfdist.doctor(strategy, model=model, "
                        "optimizer=optimizer)".format(_describe(strategy)))
    if model is not None and (hasattr(model, "apply_gradients") or isinstance(model, tf.distribute.Strategy)
                              or not hasattr(model, "trainable_variables") or not hasattr(model, "variables")):
        raise TypeError("tfdist.doctor: model must be a Keras model or layer, or a tf.Module, not {}".format(
            _describe(model)))
    if optimizer is not None and not hasattr(optimizer, "apply_gradients"):
        raise TypeError("tfdist.doctor: optimizer must be a Keras optimizer (it has apply_gradients), not {}".format(
            _describe(optimizer)))
    if not tf.executing_eagerly():
        raise RuntimeError("tfdist.doctor reads variables: call it eagerly, not inside a tf.function or a graph")
    if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
        raise RuntimeError("tfdist.doctor: call it outside strategy.run (it is in a replica context here)")


# ---------------------------------------------------------------- variables


def _tf_variable(tf, v):
    """The tf.Variable behind a variable: Keras 3 wraps each in a keras.Variable (`.value`)."""
    value = getattr(v, "value", None)
    return value if isinstance(value, tf.Variable) else v


def _name(v):
    return str(getattr(v, "path", None) or getattr(v, "name", None) or type(v).__name__)


def _variables(tf, owner):
    """The variables of a model or optimizer, as (name, tf.Variable), each once, in their order."""
    found = getattr(owner, "variables", None)
    if callable(found):  # OptimizerV2: variables(); the new Keras 2 optimizers: a callable list
        found = found()
    out, seen = [], set()
    for v in found or ():
        tv = _tf_variable(tf, v)
        if isinstance(tv, tf.Variable) and id(tv) not in seen:
            seen.add(id(tv))
            out.append((_name(v), tv))
    return out


def _is_distributed(tf, v):
    return isinstance(v, tf.distribute.DistributedValues) or type(v).__name__ == "AggregatingVariable"


def _owner(tf, v):
    """The strategy a distributed variable belongs to; None for a plain variable."""
    return getattr(v, "_distribute_strategy", None) if _is_distributed(tf, v) else None


def _distributes_variables(strategy):
    """Whether variables created in this strategy's scope are distributed (not the default strategy,
    not OneDeviceStrategy, whose variables are plain)."""
    return type(strategy).__name__ not in ("_DefaultDistributionStrategy", "OneDeviceStrategy")


def _listed(names):
    shown = ", ".join(names[:SHOWN])
    return shown + (" and {} more".format(len(names) - SHOWN) if len(names) > SHOWN else "")


def _strategy_name(strategy, this=False):
    """'the default strategy (none)', 'this MirroredStrategy', 'another MirroredStrategy object'."""
    kind = type(strategy).__name__
    if kind == "_DefaultDistributionStrategy":
        return "the default strategy (none)"
    return "this " + kind if this else "another {} object".format(kind)


def _belonging(tf, strategy, variables, what, plain_check, plain_message):
    """Findings for variables that are plain where this strategy distributes, or of another strategy."""
    findings = []
    if _distributes_variables(strategy):
        plain = [name for name, v in variables if not _is_distributed(tf, v)]
        if plain:
            findings.append(_finding(plain_check, "error", plain_message.format(
                n=len(plain), total=len(variables), names=_listed(plain), strategy=type(strategy).__name__)))
    others = {}
    for name, v in variables:
        owner = _owner(tf, v)
        if owner is not None and owner is not strategy:
            others.setdefault(id(owner), (owner, []))[1].append(name)
    for owner, names in others.values():
        findings.append(_finding("other-strategy", "error", (
            "{what} of {other}, not of {this} ({n}): {names}; they were created in another strategy's scope "
            "(mixing strategies): create them in this one's").format(
                n=len(names), what=what, other=_strategy_name(owner), this=_strategy_name(strategy, this=True),
                names=_listed(names))))
    return findings


def _check_model(tf, strategy, variables):
    return _belonging(tf, strategy, variables, "model variables", "plain-model-variable", (
        "model variables that are plain, not distributed by this {strategy} ({n} of {total}): {names}; the "
        "model's weights were created outside strategy.scope(): construct the model inside it"))


# ---------------------------------------------------------------- optimizer


def _is_keras3(optimizer):
    return any(c.__name__ == "TFOptimizer" and c.__module__.endswith("backend.tensorflow.optimizer")
               for c in type(optimizer).__mro__)


def _slots(tf, optimizer):
    """The optimizer's per-variable state (slots), without `iterations` and the learning rate."""
    slot_table = getattr(optimizer, "_slots", None)
    if isinstance(slot_table, dict):  # OptimizerV2 (TF <= 2.10 tf.keras, *.legacy): {var key: {name: slot}}
        out = []
        for per_variable in slot_table.values():
            for slot in per_variable.values():
                tv = _tf_variable(tf, slot)
                out.append((_name(slot), tv))
        return out
    not_slots = set()
    for attribute in ("_iterations", "_learning_rate", "_current_learning_rate"):
        value = getattr(optimizer, attribute, None)
        if value is not None:
            not_slots.add(id(_tf_variable(tf, value)))
    return [(name, v) for name, v in _variables(tf, optimizer) if id(v) not in not_slots]


def _check_optimizer(tf, strategy, optimizer):
    findings = []
    kind = type(optimizer).__name__
    if _is_keras3(optimizer):
        captured = getattr(optimizer, "_distribution_strategy", None)
        if captured is not None and captured is not strategy:
            findings.append(_finding("optimizer-strategy", "error", (
                "the optimizer ({}) was constructed under {}, not under {}: Keras 3 creates every slot with "
                "the strategy current at the optimizer's construction; construct it inside strategy.scope()").format(
                    kind, _strategy_name(captured), _strategy_name(strategy, this=True))))
        if not getattr(optimizer, "built", True):
            findings.append(_finding("optimizer-not-built", "warning", (
                "the optimizer ({}) is not built yet: Keras 3 would create its slots lazily, inside the first "
                "traced step; call optimizer.build(model.trainable_variables) inside strategy.scope() before "
                "the first step").format(kind)))
    findings += _belonging(tf, strategy, _slots(tf, optimizer), "optimizer slots", "plain-slot", (
        "optimizer slots that are plain, not distributed by this {strategy} ({n} of {total}): {names}; "
        "they were created with no strategy active (optimizer.build or a first apply_gradients after the "
        "scope ended); build the optimizer inside strategy.scope()"))
    return findings


# ---------------------------------------------------------------- replicas


def _copies(tf, strategy, v):
    """The values of a variable's per-replica copies, or None where one cannot be read."""
    import numpy as np

    try:
        return [np.asarray(c.numpy()) for c in strategy.experimental_local_results(v)]
    except (tf.errors.OpError, ValueError, TypeError):
        return None


def _gap(first, copy):
    """How far a copy is from the first one, and whether that is more than TOLERANCE allows."""
    import numpy as np

    if first.dtype.kind in "fc":
        gap = np.abs(copy - first)
        return float(np.max(gap, initial=0.0)), bool(np.any(gap > TOLERANCE * (1 + np.abs(first))))
    if first.dtype.kind in "iub":
        gap = np.abs(copy.astype(np.float64) - first.astype(np.float64))
        return float(np.max(gap, initial=0.0)), bool(np.any(gap > 0))
    return float("nan"), not np.array_equal(copy, first)


def _statistics(tf, model):
    """The moving statistics of the model's BatchNormalization layers that are not synchronized
    across replicas, as (name, tf.Variable). Each replica updates them from its own share of the batch
    (Keras 2: sync-on-read variables; Keras 3: mirrored variables with aggregation NONE), so their
    copies differ by design of the layer, which is what TFD015 is about, not a lost update."""
    out = []
    for layer in _layers(model):
        kind = type(layer).__name__
        if "BatchNormalization" not in kind or kind.startswith("Sync") or getattr(layer, "synchronized", False):
            continue
        for attribute in ("moving_mean", "moving_variance"):
            v = getattr(layer, attribute, None)
            tv = _tf_variable(tf, v) if v is not None else None
            if isinstance(tv, tf.Variable):
                out.append((_name(v), tv))
    return out


def _check_statistics(tf, strategy, statistics):
    """Unsynchronized BatchNormalization statistics whose per-replica copies differ (TFD015)."""
    differ = []
    for name, v in statistics:
        if _owner(tf, v) is not strategy:
            continue
        copies = _copies(tf, strategy, v)
        if copies and len(copies) > 1 and all(c.shape == copies[0].shape for c in copies) \
                and any(_gap(copies[0], c)[1] for c in copies[1:]):
            differ.append(name)
    if not differ:
        return []
    return [_finding("replica-statistics", "warning", (
        "BatchNormalization moving statistics that differ between the replicas ({n}): {names}; each replica "
        "updates them from its own share of each batch, so a saved model, or a read outside strategy.run, keeps "
        "one value for all of them and predicts otherwise than the model in memory; use synchronized batch "
        "normalization (BatchNormalization(synchronized=True), or SyncBatchNormalization where that argument "
        "does not exist)").format(n=len(differ), names=_listed(differ)))]


def _check_agreement(tf, strategy, variables, skip=()):
    """Every mirrored variable's copies hold the same value (within TOLERANCE), with the same shape;
    variables in `skip` (ids: the batch statistics _check_statistics judges) are left out."""
    disagree, malformed, worst = [], [], (0.0, None)
    for name, v in variables:
        if not _is_distributed(tf, v) or _owner(tf, v) is not strategy or id(v) in skip:
            continue
        if getattr(v, "synchronization", None) == tf.VariableSynchronization.ON_READ:
            continue  # sync-on-read copies differ by design (metrics, batch statistics)
        copies = _copies(tf, strategy, v)
        shape = tuple(v.shape.as_list()) if v.shape.is_fully_defined() else copies and copies[0].shape
        if copies is None or any(c.shape != shape for c in copies):
            malformed.append(name)
            continue
        gaps = [_gap(copies[0], c) for c in copies[1:]]
        if any(differs for _, differs in gaps):
            disagree.append(name)
            gap = max(g for g, _ in gaps)
            if worst[1] is None or gap > worst[0]:
                worst = (gap, name)
    findings = []
    if malformed:
        findings.append(_finding("copies-malformed", "error", (
            "mirrored variables whose per-replica copies cannot be read or lack the variable's shape ({n}): "
            "{names}; they were created while a tf.function traced strategy.run (Keras 3 building its "
            "slots lazily in the first step); build the optimizer inside strategy.scope() before the first "
            "step").format(n=len(malformed), names=_listed(malformed))))
    if disagree:
        findings.append(_finding("replicas-disagree", "error", (
            "mirrored variables whose per-replica copies differ ({n}): {names}; the largest difference is "
            "{gap:.6g}, in {worst}: an update reached only some replicas (apply_gradients outside strategy.run, or slots "
            "built outside the scope)").format(n=len(disagree), names=_listed(disagree), gap=worst[0],
                                                 worst=worst[1])))
    return findings


def _check_devices(strategy):
    """The replicas the strategy reports against the distinct devices it holds."""
    if not _distributes_variables(strategy):
        return []
    try:
        devices = list(strategy.extended.worker_devices)
    except (AttributeError, NotImplementedError, RuntimeError, ValueError):
        return []  # a strategy that does not list its devices (a parameter-server cluster)
    replicas = strategy.num_replicas_in_sync
    kind = type(strategy).__name__
    duplicated = sorted({d for d in devices if devices.count(d) > 1})
    if duplicated:
        return [_finding("replica-devices", "error", "{} lists the same device more than once ({}): its replicas "
                         "share a device".format(kind, ", ".join(duplicated)))]
    workers = getattr(strategy.extended, "_num_workers", 1) or 1
    if workers == 1 and replicas != len(devices):
        return [_finding("replica-devices", "error", "{} reports {} replicas in sync but holds {} distinct devices "
                         "({})".format(kind, replicas, len(devices), ", ".join(devices)))]
    if replicas == 1 and workers == 1:
        return [_finding("replica-devices", "warning", "{} has a single replica ({}): nothing is distributed; "
                         "TensorFlow sees no second device".format(kind, ", ".join(devices)))]
    return []


# ---------------------------------------------------------------- revived models


def _revived(layer):
    """Whether Keras revived this layer's class from a SavedModel (the class was not given)."""
    return any(c.__name__ in ("RevivedLayer", "RevivedNetwork") and c.__module__.endswith("saved_model.load")
               for c in type(layer).__mro__)


def _layers(model):
    flatten = getattr(model, "_flatten_layers", None)
    if callable(flatten):
        try:
            return list(flatten(include_self=True, recursive=True))
        except TypeError:
            pass
    return [model] + [m for m in getattr(model, "submodules", ()) if hasattr(m, "trainable_variables")]


def _reads_replica_id(layer):
    """Whether the functions the SavedModel restored for this layer hold a replica id op."""
    api = getattr(layer, "keras_api", None)
    for attribute in ("call_and_return_conditional_losses", "__call__"):
        function = getattr(api, attribute, None)
        for concrete in getattr(function, "concrete_functions", None) or ():
            graph = concrete.graph.as_graph_def()
            nodes = list(graph.node) + [n for f in graph.library.function for n in f.node_def]
            if any("replica_id_in_sync_group" in n.name for n in nodes):
                return True
    return False


def _check_revived(model):
    revived = [layer for layer in _layers(model) if _revived(layer)]
    if not revived:
        return []
    names = []
    for layer in revived:
        if type(layer).__name__ not in names:
            names.append(type(layer).__name__)
    reads = [type(layer).__name__ for layer in revived if _reads_replica_id(layer)]
    severity = "error" if reads else "warning"
    said = ("its functions read the replica id ({}), frozen at that trace".format(_listed(reads)) if reads else
            "a replica id (or anything else) that call() read from tf.distribute is a constant there")
    return [_finding("revived-model", severity, (
        "the model was loaded without its Python classes: Keras revived {} from the SavedModel, so each call runs "
        "the functions model.save traced; {}. Give load_model the classes (custom_objects, or registered classes "
        "and a .keras file)").format(_listed(names), said))]


# ---------------------------------------------------------------- entry point


def doctor(strategy, model=None, optimizer=None, raise_on=None):
    """The silent failures found in `strategy`, `model` and `optimizer`: a Findings list (printed,
    one line per finding), each a Finding (id, severity, message, url). With `raise_on="error"`
    (or "warning"), DoctorError lists the findings at or above that severity instead of returning.

    Call it eagerly, after building (or training) the model: it reads every variable's copies."""
    tf = _import_tensorflow()
    _check_arguments(tf, strategy, model, optimizer, raise_on)
    if type(strategy).__name__.startswith("ParameterServerStrategy"):
        # its variables live on the parameter servers, one copy each, and its replicas on the workers
        # of a cluster: none of the checks below (copies per replica, devices of this process) applies
        return Findings([])
    findings = Findings(_check_devices(strategy))
    variables, statistics = [], []
    if model is not None:
        model_variables = _variables(tf, model)
        findings += _check_model(tf, strategy, model_variables)
        findings += _check_revived(model)
        variables += model_variables
        statistics = _statistics(tf, model)
    if optimizer is not None:
        findings += _check_optimizer(tf, strategy, optimizer)
        variables += _variables(tf, optimizer)
    seen, unique = set(), []
    for name, v in variables:
        if id(v) not in seen:
            seen.add(id(v))
            unique.append((name, v))
    findings += _check_agreement(tf, strategy, unique, {id(v) for _, v in statistics})
    findings += _check_statistics(tf, strategy, statistics)
    if raise_on is not None:
        threshold = SEVERITIES.index(raise_on)
        serious = Findings(f for f in findings if SEVERITIES.index(f["severity"]) >= threshold)
        if serious:
            raise DoctorError(serious)
    return findings
