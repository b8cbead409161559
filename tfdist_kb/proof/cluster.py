"""Run one snippet as a local TensorFlow cluster: one process per task, over loopback only.

Usage (the runner does this): python -m tfdist_kb.proof.cluster SPEC.json [LIFELINE_FD]

SPEC.json (written by tfdist_kb.proof.runner) names the snippet, the tasks (`[["worker", 0], ...]`),
the interpreter, the process environment, the time limit and whether this process runs in a network
namespace of its own (`unshare --net --map-root-user`, where the machine allows it). In one, the only
interface is loopback, brought up here, and the ports are fixed (PORT_BASE + task number): nothing can
reach the cluster, no other address exists, and parallel clusters cannot clash. Without one, each task
gets a free port on 127.0.0.1, chosen here; TF_CONFIG names only `localhost` either way.

Each task is `python -m tfdist_kb.proof.child SNIPPET RESULT.json LIFELINE` in a folder of its own
(`task0-worker-0/`: its result, its witness, its stdout and stderr, its TMPDIR), in a process group of its
own, with TF_CONFIG naming the whole cluster and its own task, and TFDIST_TASK (`worker:0`) so that the
child leaves the task's devices as a plain process finds them.

Ending, so that no task outlives the run:
- all tasks ended: done;
- one task ended without passing (it raised, or crashed): the others get GRACE seconds (they are
  usually blocked in a collective that waits for it), then their process groups are killed; that task
  is `first_failed` (the runner prefers the task that raised first, by the time each task's result
  records, since several tasks may end between two looks);
- the time limit: every task still running is killed;
- a parameter-server cluster (it has a `ps` task): its workers and parameter servers serve the chief
  (the coordinator) and never end by themselves; when the chief has ended they are stopped, `served`.
  One of them that ends first (its machine lost) starts no grace: the coordinator deals with it, and
  the chief's own outcome (or the time limit) ends the run.
SPEC.json's folder gets `cluster.json`: for each task how it ended and whether this process stopped it,
the ports, the network. When the runner dies (end-of-file on LIFELINE), every task is killed.

The fast mode (`--serve`, what `make test` uses through tfdist_kb.proof.forkpool): this process imports
TensorFlow once, then runs one cluster per request, forking each task from that state as
tfdist_kb.proof.forkserver forks single runs; its ports are free ones (a previous cluster's may linger),
recorded as the fixed ones by the runner.

Runs under every environment's interpreter (Python 3.7+): standard library only.
"""
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                             "tfdist", "src"))
from tfdist.cluster import free_ports, tf_config  # noqa: E402  the same TF_CONFIG readers get from tfdist

from tfdist_kb.proof.witness import file_of  # noqa: E402

RESULT = "result.json"  # each task's result file, in its folder (its witness's beside it)
PORT_BASE = 20000
# Seconds the other tasks get after one failed: a survivor notices a dead peer when a collective talks
# to it, or else through MultiWorkerMirroredStrategy's own health check, which on TF 2.4-2.5 asks every
# peer every 30 s (`_check_health_interval`) and aborts the collectives of a survivor that finds one down.
GRACE = 45.0


def task_name(task):
    return "%s:%d" % (task[0], task[1])


def _loopback_up():
    """Bring up `lo` in a new network namespace (where it starts down); SIOCGIFFLAGS/SIOCSIFFLAGS."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, 0x8913, request))[1]
        fcntl.ioctl(sock, 0x8914, struct.pack("16sH14s", b"lo", flags | 0x1, b"\0" * 14))
    finally:
        sock.close()


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _outcome(folder):
    """The child's outcome in `folder` ('passed', 'raised', 'error') or None (no result yet, or none)."""
    try:
        with open(os.path.join(folder, RESULT)) as handle:
            return json.load(handle).get("outcome")
    except (OSError, ValueError):
        return None


class _Forked(object):
    """A task forked from this process (which imported TensorFlow once): what Popen offers here."""

    def __init__(self, pid):
        self.pid, self.returncode = pid, None

    def poll(self):
        if self.returncode is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        return self.returncode

    def wait(self):
        while self.poll() is None:
            time.sleep(0.02)
        return self.returncode


def _fork_task(spec, folder, environ, read_end, held):
    """Fork a task from this process (TensorFlow imported once): it becomes a fresh
    `python -m tfdist_kb.proof.child` run with the task's environment, as forkserver's children do."""
    pid = os.fork()
    if pid:
        return _Forked(pid)
    from tfdist_kb.proof.forkserver import become_child

    become_child({"snippet": spec["snippet"], "result": os.path.join(folder, RESULT),
                  "tmpdir": environ["TMPDIR"]}, read_end, environ, close=held)


def _start_task(spec, folder, environ, read_end, held):
    with open(os.path.join(folder, "stdout"), "w") as out, open(os.path.join(folder, "stderr"), "w") as err:
        return subprocess.Popen([spec["python"], "-m", "tfdist_kb.proof.child", spec["snippet"],
                                 os.path.join(folder, RESULT), str(read_end)],
                                cwd=folder, env=environ, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, pass_fds=(read_end,))


_processes = []  # the tasks of the cluster running now (the lifeline's watcher ends them)
_lock = threading.Lock()


def run_cluster(spec_path, fork=False, fixed_ports=True):
    """Run the cluster SPEC.json describes; write cluster.json beside it (see the module's docstring)."""
    with open(spec_path) as handle:
        spec = json.load(handle)
    scratch = os.path.dirname(os.path.abspath(spec_path))
    tasks = [tuple(t) for t in spec["tasks"]]
    fixed = fixed_ports and spec.get("private_network")
    ports = [PORT_BASE + i for i in range(len(tasks))] if fixed else free_ports(len(tasks))
    processes, folders, report = [], [], []
    held = []  # the write ends of the tasks' lifelines: a task ends itself when this process dies
    for position, task in enumerate(tasks):
        folder = os.path.join(scratch, "task%d-%s-%d" % ((position,) + task))
        os.makedirs(os.path.join(folder, "tmp"))
        environ = dict(spec["environ"], TF_CONFIG=tf_config(tasks, ports, task), TFDIST_TASK=task_name(task),
                       TMPDIR=os.path.join(folder, "tmp"))
        read_end, write_end = os.pipe()
        held.append(write_end)
        with _lock:
            process = (_fork_task if fork else _start_task)(spec, folder, environ, read_end, held)
            processes.append(process)
            _processes.append(process)
        os.close(read_end)
        folders.append(folder)
        report.append({"task": task_name(task), "folder": os.path.basename(folder), "stopped": None})
    started = time.monotonic()
    deadline = started + float(spec["time_limit"])
    failed_at = coordinator_ended = None
    # a parameter-server cluster: the chief coordinates, its workers and parameter servers serve until it ends
    serving = [i for i, task in enumerate(tasks) if task[0] != "chief"] if any(t[0] == "ps" for t in tasks) else []
    while True:
        running = [i for i, p in enumerate(processes) if p.poll() is None]
        if not running:
            break
        now = time.monotonic()
        for i, process in enumerate(processes):
            if process.returncode is not None and "ended_after" not in report[i]:
                report[i]["ended_after"] = round(now - started, 2)
                # a server of a parameter-server cluster that ends is the coordinator's to handle (it
                # retries a lost worker's steps elsewhere; a lost parameter server fails its steps)
                if (failed_at is None and not report[i]["stopped"] and i not in serving
                        and (process.returncode != 0 or _outcome(folders[i]) != "passed")):
                    failed_at, first = now, report[i]["task"]
        if serving and set(running) <= set(serving):
            # the coordinator has ended: stop the servers, each once its witness has recorded the server
            # it started (a server still importing TensorFlow when a coordinator failed at once would
            # otherwise leave no record that it existed), or GRACE seconds after the coordinator ended
            coordinator_ended = coordinator_ended or now
            for i in running:
                if _served(folders[i]) or now > coordinator_ended + GRACE:
                    report[i]["stopped"] = "served until the coordinator ended"
                    report[i]["served"] = True
                    _kill(processes[i])
        elif now > deadline:
            for i in running:
                report[i]["stopped"] = "time limit"
                _kill(processes[i])
        elif failed_at is not None and now > failed_at + GRACE:
            for i in running:
                report[i]["stopped"] = "%s ended without passing %.0f s earlier" % (first, GRACE)
                _kill(processes[i])
        time.sleep(0.05)
    for i, process in enumerate(processes):
        _kill(process)  # whatever the task started and left running
        code = process.returncode
        report[i]["ended"] = ("killed by %s" % signal.Signals(-code).name) if code < 0 else "exit status %d" % code
    with _lock:
        del _processes[:]
    for write_end in held:
        os.close(write_end)
    summary = {"tasks": report, "first_failed": first if failed_at is not None else None, "ports": ports,
               "fixed_ports": bool(fixed), "private_network": bool(spec.get("private_network")),
               "forked": fork, "seconds": round(time.monotonic() - started, 2)}
    with open(os.path.join(scratch, "cluster.json.part"), "w") as handle:
        json.dump(summary, handle)
    os.replace(os.path.join(scratch, "cluster.json.part"), os.path.join(scratch, "cluster.json"))


def _served(folder):
    """Whether the task in `folder` has started a server, as its witness recorded (whole or absent)."""
    try:
        with open(file_of(os.path.join(folder, RESULT))) as handle:
            return bool(json.load(handle).get("servers"))
    except (OSError, ValueError, AttributeError):
        return False


def _watch_lifeline(lifeline):
    """End every task and this process when the runner is gone (end-of-file on its lifeline)."""
    os.set_inheritable(lifeline, False)

    def watch():
        try:
            while os.read(lifeline, 1):
                pass
        except OSError:
            pass
        with _lock:
            for process in _processes:
                _kill(process)
        os._exit(1)

    thread = threading.Thread(target=watch, name="tfdist-cluster-lifeline")
    thread.daemon = True
    thread.start()


def serve(private_network):
    """The fast mode: import TensorFlow once, then run one cluster per request line ({"spec": PATH}),
    forking its tasks (as tfdist_kb.proof.forkserver forks single runs); one reply line each. The
    ports are free ones even in a namespace of its own (the last cluster's may linger)."""
    if private_network:
        _loopback_up()
    from tfdist_kb.proof.forkserver import _import_tensorflow

    _import_tensorflow()
    replies = os.fdopen(os.dup(1), "w")
    replies.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        started = time.monotonic()
        run_cluster(request["spec"], fork=True, fixed_ports=False)
        replies.write(json.dumps({"exit": 0, "signal": None, "timed_out": False,
                                  "seconds": round(time.monotonic() - started, 2)}) + "\n")
        replies.flush()
    return 0


def main(argv):
    """`python -m tfdist_kb.proof.cluster SPEC.json [LIFELINE]`: one cluster, fresh processes;
    `python -m tfdist_kb.proof.cluster --serve [--private-network] LIFELINE`: the fast mode."""
    if argv[1] == "--serve":
        _watch_lifeline(int(argv[-1]))
        return serve("--private-network" in argv)
    if len(argv) > 2:
        _watch_lifeline(int(argv[2]))
    with open(argv[1]) as handle:
        if json.load(handle).get("private_network"):
            _loopback_up()
    run_cluster(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
