"""Run one snippet inside a TensorFlow environment and write what happened as JSON.

Usage (the runner does this): python -m tfdist_kb.child SNIPPET.py RESULT.json [LIFELINE_FD]

Runs under every environment's interpreter (Python 3.7+), so: standard library only.
The snippet runs as `__main__`, exactly as `python SNIPPET.py` would run it, after
`replicas.provide_replicas()` has made 4 devices visible and `witness` has started to record
what runs where (RESULT.json.witness, kept up to date while the snippet runs).

LIFELINE_FD is the read end of a pipe whose write end only the runner holds: end-of-file on it
means the runner is gone (killed, even by SIGKILL). The child then removes the runner's scratch
folder (RESULT.json's folder, where the snippet's TMPDIR is too) and kills its own process group,
so that a killed `tfdist matrix` leaves no snippet running and no temporary folder behind.
"""
import json
import os
import platform
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


def main(argv):
    _start_watchdog(argv)
    snippet, result_path = argv[1], argv[2]
    result = {"python": platform.python_version()}
    started = time.time()
    namespace = {"__name__": "__main__", "__file__": snippet, "__builtins__": __builtins__}
    try:
        from tfdist_kb.replicas import provide_replicas
        from tfdist_kb.witness import Witness

        result["devices"] = provide_replicas()
        witness = Witness(result_path + ".witness")
        witness.install()
        import tensorflow as tf

        result["tensorflow"] = tf.__version__
        result["keras_package"], result["keras"] = _keras()
        with open(snippet) as handle:
            code = compile(handle.read(), snippet, "exec")
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
                result["exception"] = type(error).__name__
                result["message"] = str(error)
                result["traceback"] = traceback.format_exc()[-4000:]
        result["snippet_seconds"] = round(time.time() - own, 3)  # the snippet's own work: no import, no setup
        witness.save(final=True)
        result["witness"] = witness.record
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
