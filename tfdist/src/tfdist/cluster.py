"""Try multi-worker code on one machine: start a script as a local TensorFlow cluster.

    import tfdist
    tfdist.local_cluster("train.py", workers=4)   # 4 processes of `python train.py`, each with its
                                                  # TF_CONFIG (localhost ports), as 4 machines would run it

    python -m tfdist cluster --workers 4 train.py  # the same from a shell

Each task runs the same script, as each machine of a real cluster would, with TF_CONFIG naming the
whole cluster (`localhost:PORT` for every task, ports free on 127.0.0.1) and its own task. Nothing
listens beyond what TensorFlow itself opens for those tasks, and every address is localhost. What
each task printed is shown under its name. With parameter servers (`ps=1`, `chief=1`), the chief is
the coordinator and the workers and parameter servers serve it (`tf.distribute.Server(...).join()`, which
never returns): they are ended when the chief ends. When one task fails, the others usually wait in a
collective for it: they get GRACE seconds, then they are ended, so a failure never leaves processes
behind. A task that raised is reported as the exception `TaskFailed` (its class name is the task's
exception's, e.g. `RuntimeError`, and its message names the task): of the tasks that failed, the
first to raise an exception, else the first to crash.

Each task runs in a folder of its own (`task0-worker-0`, ...) inside a fresh temporary folder made for
this run, as the knowledge base's runner runs them: files a task writes stay its own, `..` is shared by
the run's tasks (a stand-in for a bucket every machine sees) and by no other run. The folder is removed
when the run ends, unless `keep=True` (then its path is printed).

On CPUs each worker of a MultiWorkerMirroredStrategy is one replica: 4 replicas are 4 workers.
Standard library only (Python 3.7+).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

GRACE = 15.0  # seconds the other tasks get after one failed
TASK_TYPES = ("chief", "worker", "ps", "evaluator")


class TaskFailed(Exception):
    """A task of a local cluster ended without success; `task`, `exception` (the class name it
    raised, or None for a crash) and `output` (what it printed)."""

    def __init__(self, task, exception, message, output):
        Exception.__init__(self, "{}: {}".format(task, message))
        self.task, self.exception, self.output = task, exception, output


def tasks_of(chief=0, workers=0, ps=0, evaluator=0):
    """[('chief', 0), ('worker', 0), ...]: the tasks, in the order they are numbered and reported."""
    counts = {"chief": chief, "worker": workers, "ps": ps, "evaluator": evaluator}
    return [(kind, i) for kind in TASK_TYPES for i in range(counts[kind])]


def free_ports(n):
    """n ports free on 127.0.0.1 now (held together while they are chosen, so they differ)."""
    socks = []
    try:
        for _ in range(n):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [s.getsockname()[1] for s in socks]
    finally:
        for sock in socks:
            sock.close()


def tf_config(tasks, ports, task):
    """The TF_CONFIG of `task` in a cluster of `tasks` listening on localhost `ports`."""
    cluster = {}
    for (kind, _), port in zip(tasks, ports):
        cluster.setdefault(kind, []).append("localhost:%d" % port)
    return json.dumps({"cluster": cluster, "task": {"type": task[0], "index": task[1]}})


_RAISED = re.compile(r"^(?:[\w.]+\.)?(?P<name>[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)|Exception): ?(?P<message>.*)$")


def _exception(output):
    """(class name, message) of the traceback that ends `output`, or (None, last line)."""
    lines = [line for line in output.rstrip().splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        found = _RAISED.match(lines[i])
        if found and any(line.startswith("Traceback") for line in lines[:i]):
            return found.group("name"), found.group("message")
    return None, lines[-1] if lines else "(no output)"


def local_cluster(script, workers=4, chief=0, ps=0, timeout=600, python=None, show=True, keep=False):
    """Run `script` as a local cluster; returns {task name: output}. TaskFailed if a task failed."""
    tasks = tasks_of(chief, workers, ps)
    if not 2 <= len(tasks) <= 16:
        raise ValueError("a local cluster has 2 to 16 tasks, not {}".format(len(tasks)))
    ports = free_ports(len(tasks))
    names = ["%s:%d" % t for t in tasks]
    processes, script = [], os.path.abspath(script)
    run = tempfile.mkdtemp(prefix="tfdist-cluster-")  # this run's own: `..` of every task
    for position, task in enumerate(tasks):
        environ = dict(os.environ, TF_CONFIG=tf_config(tasks, ports, task))
        folder = os.path.join(run, "task%d-%s-%d" % ((position,) + task))
        os.makedirs(folder)
        processes.append(subprocess.Popen([python or sys.executable, script], env=environ, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, universal_newlines=True,
                                          start_new_session=True, cwd=folder))
    outputs, failed, served, ended = {}, None, set(), {}  # ended: task -> when it was seen failing
    # a parameter-server cluster: the workers and parameter servers serve the chief until it ends
    serving = [n for n, (kind, _) in zip(names, tasks) if kind != "chief"] if ps and chief else []
    deadline = time.monotonic() + timeout
    try:
        import threading

        def collect(name, process):
            outputs[name] = process.stdout.read()

        readers = [threading.Thread(target=collect, args=(n, p)) for n, p in zip(names, processes)]
        for reader in readers:
            reader.daemon = True
            reader.start()
        while [p.poll() for p in processes].count(None):  # every task looked at, each time
            if serving and all(p.returncode is not None for n, p in zip(names, processes) if n not in serving):
                served.update(n for n, p in zip(names, processes) if n in serving and p.poll() is None)
                break  # the coordinator ended: its servers are ended below
            now = time.monotonic()
            for n, p in zip(names, processes):  # a server of a parameter-server cluster that ends is the coordinator's
                if p.returncode not in (None, 0) and n not in serving and n not in ended:
                    ended[n] = now
            failed = min(ended.values()) if ended else None
            if now > deadline or (failed is not None and now > failed + GRACE):
                break
            time.sleep(0.05)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()
        for reader in readers:
            reader.join(5)
        if keep:
            print("tfdist: the tasks' folders are kept in {}".format(run))
        else:
            shutil.rmtree(run, ignore_errors=True)
    if show:
        for name in names:
            print("--- {} ---\n{}".format(name, outputs.get(name, "").rstrip()))
    # the task that failed first leads, one that raised an exception before one that crashed (a task that
    # dies takes no exception with it; the others' errors say what its loss did)
    order = sorted(ended, key=lambda n: (_exception(outputs.get(n, ""))[0] is None, ended[n]))
    first = order[0] if order else next((n for n, p in zip(names, processes) if p.returncode != 0 and n not in serving),
                                        None)
    if first is not None:
        name, message = _exception(outputs.get(first, ""))
        raise type(name or "TaskFailed", (TaskFailed,), {})(first, name, message, outputs.get(first, ""))
    return outputs


def main(argv=None):
    """`tfdist cluster [--workers N] [--chief 1] [--ps N] SCRIPT`: exit status 0 if every task passed."""
    import argparse

    parser = argparse.ArgumentParser(prog="tfdist cluster", description="Run SCRIPT as a local TensorFlow cluster "
                                     "(one process per task, TF_CONFIG on localhost ports).")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--chief", type=int, default=0, choices=(0, 1))
    parser.add_argument("--ps", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("script")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.script):
        parser.exit(2, "tfdist cluster: no such script: {}\n".format(args.script))
    try:
        local_cluster(args.script, args.workers, args.chief, args.ps, args.timeout)
    except TaskFailed as error:
        sys.stderr.write("tfdist cluster: {} raised {}\n".format(error.task, error.exception or "nothing (it crashed)"))
        return 1
    except ValueError as error:
        sys.stderr.write("tfdist cluster: {}\n".format(error))
        return 2
    return 0
