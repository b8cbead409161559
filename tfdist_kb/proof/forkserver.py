"""A TensorFlow imported once per environment, forking one child per snippet run (the fast mode).

Usage (the runner does this): python -m tfdist_kb.proof.forkserver LIFELINE_FD
then one JSON request per line on stdin, one JSON reply per line on stdout:
    {"snippet": PATH, "result": SCRATCH/result.json, "limit": SECONDS, "tmpdir": SCRATCH/tmp}
    -> {"exit": CODE or null, "signal": NUMBER or null, "timed_out": BOOL, "seconds": S}

Nearly all of a fresh run is `import tensorflow`. This process does that (and touches `tf.keras`,
which loads the Keras the environment configures), and nothing else: it executes no op, creates no
device, sets no Keras state, so each fork starts from a state no run has touched. The child then
does what a fresh `python -m tfdist_kb.proof.child` does, in its own session (process group), its own
working directory (the runner's scratch folder, with stdout and stderr written to files there) and
temporary folder. Its environment variables are those a fresh child has when the snippet's first
line runs: the child imports TensorFlow before it (to provide the 4 devices), and that import sets
some (TF2_BEHAVIOR=1, ...). A snippet that must set variables before TensorFlow is imported
declares `fresh-process` (tfdist_kb.proof.expect) and never comes here. It writes the same result file.

This process runs one child at a time and waits for it: past its time limit the child's whole
process group is killed. A child that crashes (segfault, os._exit, memory) is reported by its exit
status; this process survives it. When the runner dies, stdin ends and this process exits, and each
child ends itself through the runner's lifeline (tfdist_kb.proof.child).

Runs under every environment's interpreter (Python 3.7+): standard library only.
"""
import json
import os
import resource
import signal
import sys
import time

MEMORY_LIMIT = 16 << 30  # address space a child may add to what the import left (bytes)


def _import_tensorflow():
    """Import TensorFlow and the Keras `tf.keras` stands for, as a fresh child and the snippet's
    first lines would."""
    import tensorflow as tf

    try:
        tf.keras.layers  # TF >= 2.16 loads Keras lazily, on first use
    except Exception:  # noqa: BLE001  a Keras that fails to load fails the same way in the snippet
        pass


def _address_space():
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def become_child(request, lifeline, environ=None, close=()):
    """In a forked process: become a fresh run of tfdist_kb.proof.child; never returns. `environ`:
    the whole process environment it runs with (a cluster task's, TF_CONFIG included), else this
    one's; `close`: descriptors that are the forking process's alone (the other tasks' lifelines)."""
    code = 70
    try:
        for fd in close:
            os.close(fd)
        os.setsid()
        scratch = os.path.dirname(request["result"])
        os.chdir(scratch)
        if environ is not None:
            os.environ.clear()
            os.environ.update(environ)
        os.environ["TMPDIR"] = request["tmpdir"]
        import tempfile

        tempfile.tempdir = None  # read TMPDIR again, as a fresh process would
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, name in ((1, "stdout"), (2, "stderr")):
            target = os.open(os.path.join(scratch, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdin = open(0, closefd=False)
        used = _address_space()
        if used:
            resource.setrlimit(resource.RLIMIT_AS, (used + MEMORY_LIMIT, used + MEMORY_LIMIT))
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from tfdist_kb.proof import child

        code = child.main(["tfdist_kb.proof.child", request["snippet"], request["result"], str(lifeline)])
    except BaseException:  # noqa: BLE001  the runner sees no result file and the exit status
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _wait(pid, limit):
    """Wait for the child; past `limit` seconds kill its process group. (status, timed_out)"""
    deadline = time.monotonic() + limit
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            _kill_group(pid)
            _, status = os.waitpid(pid, 0)
            _kill_group(pid)
            return status, True
        time.sleep(delay)
        delay = min(delay * 2, 0.02)
    _kill_group(pid)  # whatever the snippet started and left running
    return status, False


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv):
    lifeline = int(argv[1])
    _import_tensorflow()
    replies = os.fdopen(os.dup(1), "w")  # the runner's channel; fd 1 itself goes to each child's file
    replies.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            become_child(request, lifeline)
        status, timed_out = _wait(pid, float(request["limit"]))
        replies.write(json.dumps({
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": timed_out, "seconds": round(time.monotonic() - started, 2)}) + "\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
