"""The runner's side of the fast mode: pre-imported TensorFlow processes (tfdist_kb.proof.forkserver),
one or more per environment, each running one snippet at a time.

A server is started on first use and kept while its environment has runs to do: starting one for
another environment ends the idle servers of the others. One that died (or that stopped answering)
is replaced. All of them, and every child they fork, end with this process: they
hold the read end of one lifeline pipe whose write end only this process has.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import threading
from dataclasses import dataclass

from .envs import Env

START_LIMIT = 300.0  # seconds for a server to import TensorFlow
_lock = threading.Lock()
_idle: dict[str, list["Server"]] = {}
_all: list["Server"] = []
_lifeline: tuple[int, int] | None = None


class ServerError(Exception):
    """A server could not start or stopped answering: the run is not evidence."""


def _lifeline_read_end() -> int:
    global _lifeline
    if _lifeline is None:
        _lifeline = os.pipe()  # the write end stays open, unused, for as long as this process lives
    return _lifeline[0]


@dataclass
class Reply:
    exit: int | None
    signal: int | None
    timed_out: bool
    seconds: float


class Server:
    def __init__(self, env: Env, cluster: tuple[str, ...] | None = None):
        """`cluster`: a cluster server (tfdist_kb.proof.cluster --serve), run under this command prefix
        (a network namespace of its own: `unshare --net --map-root-user`, or () for none)."""
        self.env = env
        lifeline = _lifeline_read_end()
        environ = env.process_environ()
        if cluster is None:
            command = [str(env.interpreter), "-m", "tfdist_kb.proof.forkserver"]
        else:
            environ["CUDA_VISIBLE_DEVICES"] = ""  # as tfdist_kb.proof.runner gives every cluster task
            command = [*cluster, str(env.interpreter), "-m", "tfdist_kb.proof.cluster", "--serve",
                       *(["--private-network"] if cluster else [])]
        self.process = subprocess.Popen(
            command + [str(lifeline)],
            env=environ, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, pass_fds=(lifeline,), start_new_session=True, text=True, bufsize=1)
        self._read(START_LIMIT, "start (import TensorFlow)")

    def _read(self, limit: float, doing: str) -> dict:
        ready, _, _ = select.select([self.process.stdout], [], [], limit)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.stop()
            raise ServerError(f"the pre-imported TensorFlow of {self.env.name} did not {doing} "
                              f"({'no answer' if not ready else 'it exited'} after {limit:.0f} s)")
        return json.loads(line)

    def run(self, snippet: str, result: str, tmpdir: str, limit: float) -> Reply:
        return self.ask({"snippet": snippet, "result": result, "tmpdir": tmpdir, "limit": limit}, limit)

    def ask(self, request: dict, limit: float) -> Reply:
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            raise ServerError(f"the pre-imported TensorFlow of {self.env.name} has exited") from None
        reply = self._read(limit + 60, "answer")  # the server itself enforces `limit`
        return Reply(reply["exit"], reply["signal"], reply["timed_out"], reply["seconds"])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


def run(env: Env, snippet: str, result: str, tmpdir: str, limit: float) -> Reply:
    """Run one snippet in a pre-imported `env`: a free server, or a new one."""
    return _ask(env, None, {"snippet": snippet, "result": result, "tmpdir": tmpdir, "limit": limit}, limit)


def run_cluster(env: Env, prefix: list[str], spec: str, limit: float) -> Reply:
    """Run one local cluster (tfdist_kb.proof.cluster) in a pre-imported `env`, its tasks forked; the
    server runs under `prefix` (a network namespace of its own, or [] for none)."""
    return _ask(env, tuple(prefix), {"spec": spec}, limit)


def _ask(env: Env, cluster: tuple[str, ...] | None, request: dict, limit: float) -> Reply:
    key = env.name + (" cluster" if cluster is not None else "")
    with _lock:
        idle = _idle.setdefault(key, [])
        server = idle.pop() if idle else None
        # Another environment's idle servers are done (the runner takes the environments one after
        # the other in fork mode): each holds an imported TensorFlow (0.2 to 0.6 GB), so end them.
        others = []
        if server is None:
            for name in _idle:
                if name.split(" ")[0] != env.name:
                    others += _idle[name]
                    _idle[name] = []
    for other in others:
        other.stop()
    if server is None or not server.alive():
        server = Server(env, cluster)
        with _lock:
            _all.append(server)
    reply = server.ask(request, limit)
    with _lock:
        if server.alive():
            _idle[key].append(server)
    return reply


@atexit.register
def stop_all() -> None:
    """End every server now (they would end with this process anyway)."""
    with _lock:
        servers, _all[:] = list(_all), []
        _idle.clear()
    for server in servers:
        if server.alive():
            server.stop()
