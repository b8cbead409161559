"""Run one snippet inside a TensorFlow environment and write what happened as JSON.

Usage (the runner does this): python -m tfdist_kb.child SNIPPET.py RESULT.json

Runs under every environment's interpreter (Python 3.7+), so: standard library only.
The snippet runs as `__main__`, exactly as `python SNIPPET.py` would run it, after
`replicas.provide_replicas()` has made 4 devices visible and `witness` has started to record
what runs where (RESULT.json.witness, kept up to date while the snippet runs).
"""
import json
import platform
import sys
import time
import traceback


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
        witness.save(final=True)
        result["witness"] = witness.record
    except BaseException:
        result["outcome"] = "error"
        result["traceback"] = traceback.format_exc()[-4000:]
    result["seconds"] = round(time.time() - started, 2)
    sys.stdout.flush()
    with open(result_path, "w") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
