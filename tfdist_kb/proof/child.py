"""Run one snippet inside a TensorFlow environment and write what happened as JSON.

Usage (the runner does this): python -m tfdist_kb.proof.child SNIPPET.py RESULT.json [LIFELINE_FD]

Runs under every environment's interpreter (Python 3.7+), so: standard library only.
The snippet runs as `__main__`, exactly as `python SNIPPET.py` would run it, after
`replicas.provide_replicas()` has made 4 devices visible and `witness` has started to record
what runs where (RESULT.json.witness, kept up to date while the snippet runs). A snippet whose
tfdist block declares `# configures-devices = "why"` sets up its 4 devices itself (the subject of its
entry): for it nothing is configured before its first line, TensorFlow's devices are as a new
`python SNIPPET.py` finds them, and the record's `devices` says who set them up (OWN_DEVICES). The
witness holds it to the same proof: 4 replicas on 4 distinct devices that the runtime really has.

A task of a local cluster (TFDIST_TASK=worker:0, set by tfdist_kb.proof.cluster beside its TF_CONFIG) is
left with the devices a plain process finds: on CPUs each worker of a MultiWorkerMirroredStrategy is one
replica, so 4 replicas are 4 worker processes (the runner judges their witnesses together).

LIFELINE_FD is the read end of a pipe whose write end only the runner holds: end-of-file on it
means the runner is gone (killed, even by SIGKILL). The child then removes the runner's scratch
folder (RESULT.json's folder, where the snippet's TMPDIR is too) and kills its own process group,
so that a killed `tfdist matrix` leaves no snippet running and no temporary folder behind.

After the snippet (whether it returned or raised), on TensorFlow 2, where the snippet left a
module-level `strategy` and eager execution on (the doctor refuses a graph), `tfdist.doctor`
inspects the snippet's own objects: its `strategy`, its `optimizer` and each model its tfdist block
names (`# doctor = ["model", "loaded"]`; `model` where it names none), twice. The findings go under
"doctor" in RESULT.json, beside the snippet's outcome, which the doctor never changes (its output
goes nowhere; its own failure is recorded under "doctor"). So the run the tests compare with the
evidence is the run whose findings they judge.
"""
import ast
import json
import os
import platform
import re
import shutil
import signal
import sys
import threading
import time
import traceback


def _watch_runner(lifeline, scratch):
    """Wait (in a daemon thread) until the runner is gone, then clean up and end this run."""
    parent = os.getppid()
    try:
        while os.read(lifeline, 1):  # nothing is ever written: b"" (end of file) when the runner dies
            pass
    except OSError:  # the snippet closed the descriptor: fall back to watching the parent's pid
        while os.getppid() == parent:
            time.sleep(0.5)
    deadline = time.time() + 2
    while scratch and os.path.isdir(scratch) and time.time() < deadline:  # again if the snippet writes meanwhile
        shutil.rmtree(scratch, ignore_errors=True)
    if os.getpgid(0) == os.getpid():  # a group of its own (the runner starts it in a new session)
        os.killpg(0, signal.SIGKILL)  # this process, the snippet and any process it started
    os.kill(os.getpid(), signal.SIGKILL)


def _start_watchdog(argv):
    """Before anything else, when the runner passed its lifeline."""
    if len(argv) < 4:
        return
    lifeline = int(argv[3])
    os.set_inheritable(lifeline, False)  # not for the snippet's own subprocesses
    scratch = os.path.dirname(os.path.abspath(argv[2]))
    if not os.path.basename(scratch).startswith("tfdist-"):  # only ever the runner's own scratch folder
        scratch = None
    thread = threading.Thread(target=_watch_runner, args=(lifeline, scratch), name="tfdist-watchdog")
    thread.daemon = True
    thread.start()


def _version(module_name):
    try:
        module = __import__(module_name)
        for part in module_name.split(".")[1:]:
            module = getattr(module, part)
        return getattr(module, "__version__", None)
    except Exception:  # not installed, or fails to import: no version to report
        return None


def _keras():
    """(package, version) of the Keras that `tf.keras` really is in this process."""
    import tensorflow as tf

    root = tf.keras.layers.Dense.__module__.split(".")[0]
    if root == "tf_keras":
        return "tf-keras", _version("tf_keras")
    if root == "keras":
        return "keras", _version("keras")
    return "tf.keras", getattr(tf.keras, "__version__", None)  # bundled in TensorFlow (TF 1.x, 2.0-2.5)


# The snippet's tfdist block (as tfdist_kb.proof.expect reads it) and, in it, the models the doctor inspects.
_BLOCK = re.compile(r"^# /// tfdist\s*$(?P<body>(?:\n#.*$)*?)\n# ///\s*$", re.MULTILINE)
_DOCTOR = re.compile(r"^# doctor\s*=\s*(?P<names>\[.*\])\s*$", re.MULTILINE)
# `configures-devices` in the block (tfdist_kb.proof.expect checks it against its TOML reading).
_OWN = re.compile(r"^# configures-devices\s*=", re.MULTILINE)
OWN_DEVICES = "devices set up by the snippet itself"
CLUSTER_TASK = "one CPU per task of a local cluster, as a plain process finds it"
_PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tfdist", "src")


def doctor_names(source):
    """The module-level names the doctor inspects as models, as the snippet's tfdist block declares
    them on one line (`# doctor = ["model", "loaded"]`), or None where it declares none (then
    `model`). tfdist_kb.proof.expect checks the declaration against its TOML reading of the block."""
    block = _BLOCK.search(source)
    found = _DOCTOR.search(block.group("body")) if block else None
    if not found:
        return None
    try:
        return ast.literal_eval(found.group("names"))
    except (ValueError, SyntaxError):
        return None


def configures_devices(source):
    """Whether the snippet's tfdist block declares `configures-devices` (it sets up its own devices)."""
    block = _BLOCK.search(source)
    return bool(block and _OWN.search(block.group("body")))


def _failure(error):
    return {"error": type(error).__name__, "message": str(error), "traceback": traceback.format_exc()[-3000:]}


def _doctor(namespace, declared):
    """{model name: findings of tfdist.doctor, called twice, or why there are none}, on the objects
    the snippet left in `namespace`. Nothing it does reaches the snippet's stdout."""
    if _PACKAGE not in sys.path:
        sys.path.append(_PACKAGE)  # only now: the snippet never saw it
    report = {}
    sys.stdout.flush()
    saved = os.dup(1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    try:
        for name in declared or ["model"]:
            if declared and name not in namespace:  # the snippet raised before it, or never made it
                report[name] = {"error": "missing", "message": "the snippet's tfdist block names {!r} for the "
                                "doctor, but the snippet left no module-level {!r}".format(name, name)}
                continue
            try:
                import tfdist

                model = namespace.get(name)  # `model` where none is declared: None if the snippet left none
                first = tfdist.doctor(namespace["strategy"], model=model, optimizer=namespace.get("optimizer"))
                again = tfdist.doctor(namespace["strategy"], model=model, optimizer=namespace.get("optimizer"))
                report[name] = {"findings": first, "same_when_called_again": first == again, "printed": str(first)}
            except Exception as error:  # the doctor's own failure: its record, not the snippet's outcome
                report[name] = _failure(error)
            sys.stdout.flush()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(quiet)
    return report


def main(argv):
    _start_watchdog(argv)
    snippet, result_path = argv[1], argv[2]
    result = {"python": platform.python_version()}
    started = time.time()
    namespace = {"__name__": "__main__", "__file__": snippet, "__builtins__": __builtins__}
    try:
        from tfdist_kb.proof.replicas import provide_replicas
        from tfdist_kb.proof.witness import Witness, file_of

        with open(snippet) as handle:
            source = handle.read()
        if os.environ.get("TFDIST_TASK"):  # one task of a local cluster (tfdist_kb.proof.cluster)
            result["devices"] = CLUSTER_TASK
        else:
            result["devices"] = OWN_DEVICES if configures_devices(source) else provide_replicas()
        witness = Witness(file_of(result_path))
        witness.install()
        import tensorflow as tf

        result["tensorflow"] = tf.__version__
        result["keras_package"], result["keras"] = _keras()
        code = compile(source, snippet, "exec")
        sys.argv = [snippet]
        own = time.time()
        try:
            exec(code, namespace)
            result["outcome"] = "passed"
        except BaseException as error:  # the snippet's own failure is the finding
            if isinstance(error, SystemExit) and not error.code:
                result["outcome"] = "passed"
            else:
                result["outcome"] = "raised"
                result["raised_at"] = time.time()  # a cluster's tasks share this clock: the first to raise leads
                result["exception"] = type(error).__name__
                result["message"] = str(error)
                result["traceback"] = traceback.format_exc()[-4000:]
        result["snippet_seconds"] = round(time.time() - own, 3)  # the snippet's own work: no import, no setup
        sys.stdout.flush()
        witness.save(final=True)
        result["witness"] = json.loads(json.dumps(witness.record))  # as the snippet left it, not the doctor
        # the doctor reads variables eagerly and checks TF 2 strategies: by design it refuses a graph (a
        # snippet that turned eager execution off) and a TF 1 strategy (tf.compat.v1.distribute)
        if (int(tf.__version__.split(".")[0]) >= 2 and "strategy" in namespace and tf.executing_eagerly()
                and isinstance(namespace["strategy"], tf.distribute.Strategy)):
            names = doctor_names(source)
            try:
                result["doctor"] = json.loads(json.dumps(_doctor(namespace, names)))
            except Exception as error:  # noqa: BLE001  the doctor's failure, never the snippet's outcome
                result["doctor"] = {name: _failure(error) for name in names or ["model"]}
    except BaseException:
        result["outcome"] = "error"
        result["traceback"] = traceback.format_exc()[-4000:]
    result["seconds"] = round(time.time() - started, 2)
    sys.stdout.flush()
    with open(result_path + ".part", "w") as handle:  # the runner reads a whole result or none
        json.dump(result, handle)
    os.replace(result_path + ".part", result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
