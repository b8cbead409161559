"""Run snippets in their environments, one process each, in parallel, on 4 replicas.

A run's record is cached under .cache/tfdist/runs, keyed on the snippet's sha256, the
environment's pins and this runner's own code, so an unchanged matrix is not run again.
"""
from __future__ import annotations

import datetime
import fnmatch
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import cluster, envs, evidence, expect, files, forkpool, messages, witness
from .envs import ROOT, Env

SNIPPETS = ROOT / "snippets"
CACHE = ROOT / ".cache" / "tfdist" / "runs"
REPLICAS = 4
TIME_LIMIT = float(os.environ.get("TFDIST_TIME_LIMIT", "240"))
# What a run's record depends on besides the snippet and the environment: the runner's own code,
# and tfdist.doctor, whose findings on the snippet's objects the child records with the run.
_RUNNER_CODE = [Path(__file__).with_name(n) for n in
                ("child.py", "replicas.py", "witness.py", "envs.py", "runner.py", "messages.py", "forkserver.py",
                 "forkpool.py", "cluster.py")] + [ROOT / "tfdist" / "src" / "tfdist" / "doctor.py"]


class RunnerError(Exception):
    """A snippet could not be run at all (hang, broken environment): never evidence."""


@dataclass(frozen=True)
class Job:
    snippet: Path  # absolute
    env: Env
    expectation: expect.Expectation

    @property
    def rel(self) -> str:
        try:
            return self.snippet.relative_to(ROOT).as_posix()
        except ValueError:  # a snippet outside the repository (the runner's own tests)
            return self.snippet.as_posix()


def snippet_files() -> list[Path]:
    return sorted(p for p in SNIPPETS.glob("TFD[0-9][0-9][0-9]/*.py"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expectations(path: Path) -> dict[str, expect.Expectation]:
    """What `path` should do in every environment; ExpectError for a malformed declaration.

    A bisection environment (`only` in envs.toml) runs just the snippets it names; for the
    others it records not-applicable, with that reason.
    """
    every = envs.load()
    table = expect.read(path, [e.name for e in every])
    rel = f"{path.parent.name}/{path.name}"
    for env in every:
        if env.only and not any(fnmatch.fnmatch(rel, pattern) for pattern in env.only):
            table[env.name] = expect.Expectation(
                "not-applicable", reason=f"{env.name} is a bisection environment; it runs only {', '.join(env.only)}")
    return table


def jobs(selected: list[Env], files: list[Path] | None = None) -> list[Job]:
    """One job per (snippet, environment); ExpectError for a malformed declaration."""
    out = []
    for path in files if files is not None else snippet_files():
        table = expectations(path)
        out += [Job(path, env, table[env.name]) for env in selected]
    return out


@functools.cache
def _runner_fingerprint() -> str:
    """Read once: the code this process runs, even if the files change while it runs."""
    return hashlib.sha256(b"".join(p.read_bytes() for p in _RUNNER_CODE)).hexdigest()[:16]


def cache_path(job: Job, mode: str = "fresh") -> Path:
    """Keyed on the snippet (where it is and what it holds: the record names it), on what is really
    installed in the environment (checked against its lock before any run) and on the runner's code."""
    key = hashlib.sha256(f"{job.rel} {sha256(job.snippet)} {envs.installed_fingerprint(job.env)} "
                         f"{_runner_fingerprint()} {mode_of(job, mode)}".encode()).hexdigest()
    return CACHE / job.env.name / f"{job.snippet.parent.name}-{job.snippet.stem}-{key[:20]}.json"


def _versions(env: Env) -> dict:
    pins = env.pins()
    if env.environ.get("TF_USE_LEGACY_KERAS"):
        package, keras = "tf-keras", pins.get("tf-keras")
    elif "keras" in pins:
        package, keras = "keras", pins["keras"]
    else:
        package, keras = "tf.keras", None  # bundled: its version is only known by importing it
    return {"tensorflow": pins.get("tensorflow") or pins.get("tensorflow-cpu"),
            "keras": keras, "keras_package": package}


def _base(job: Job) -> dict:
    return {"env": job.env.name, "snippet": job.rel, "sha256": sha256(job.snippet),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat()}


def _unexecuted(job: Job, outcome: str, **fields) -> dict:
    """The record of a run that produced no result of its own: not applicable, or stopped.
    Versions come from the pins, which `envs.ensure` has checked against what is installed."""
    record = _base(job)
    record.update(_versions(job.env))
    record.update({"python": job.env.python_version(), "outcome": outcome, "replicas": None}, **fields)
    return record


def _last_output(stdout: str, stderr: str) -> str:
    """What the snippet printed last, and its stderr without TensorFlow's own log lines."""
    printed = messages.normalise(stdout or "")[-600:] or "(nothing)"
    errors = messages.normalise(messages.without_tf_logs(stderr or ""))[-600:]
    return f"stdout: {printed}" + (f"\nstderr (TensorFlow's log lines left out): {errors}" if errors else "")


def _proof(job: Job, outcome: str, record: dict | None) -> list[str]:
    """The 4-device proof of a run (witness.problems), named after the run; RunnerError if it fails.
    Returns the devices the run's replicas were on (`ran_on` in the evidence): for a passing run,
    those of the strategies whose replica function ran on all 4 replicas; for a run that raised or
    hung, those of every strategy it created before it stopped (how many replicas got to run before
    an error stopped them depends on thread timing: not recorded)."""
    problems = witness.problems(record, outcome)
    devices = witness.ran_on(record) if outcome == "passed" else witness.spanned(record or {})
    if not problems and len(set(devices)) < REPLICAS:
        problems = [f"the run names {len(set(devices))} device(s) its replicas were on ({', '.join(devices) or 'none'})"]
    if problems:
        raise RunnerError(f"{job.rel} on {job.env.name}: not evidence, the run does not prove {REPLICAS} replicas "
                          f"on {REPLICAS} distinct devices: " + "; ".join(problems))
    return devices


def _reduction(seen: dict) -> str | None:
    """The cross-device reduction(s) the run's strategies used, as the witness read them."""
    used = sorted({s["reduction"] for s in seen["strategies"] if s.get("reduction")})
    return ", ".join(used) or None


def _ended(returncode: int | None, signal_number: int | None = None) -> str:
    """How a run's process ended, in words: 'exit status 3', 'killed by SIGSEGV'."""
    if signal_number is None and returncode is not None and returncode < 0:
        signal_number = -returncode
    if signal_number:
        try:
            return f"killed by {signal.Signals(signal_number).name}"
        except ValueError:
            return f"killed by signal {signal_number}"
    return f"exit status {returncode}"


def _launch_fresh(job: Job, scratch: Path, result_file: Path, tmpdir: Path, time_limit: float):
    """A new interpreter runs tfdist_kb.proof.child: (stdout, stderr, timed out, how it ended)."""
    environ = job.env.process_environ()
    environ["TMPDIR"] = str(tmpdir)  # the snippet's temporary files go with the scratch folder
    if _declares_tensorflow_log(job):  # TensorFlow's own log as a user's machine has it
        environ.pop("TF_CPP_MIN_LOG_LEVEL", None)
    # The child's lifeline: this process holds the write end; the child sees end-of-file when this
    # process dies (even by SIGKILL), and then removes the scratch folder and its process group.
    lifeline, held = os.pipe()
    try:
        process = subprocess.Popen(
            [str(job.env.interpreter), "-m", "tfdist_kb.proof.child", str(job.snippet), str(result_file),
             str(lifeline)],
            cwd=scratch, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True, pass_fds=(lifeline,))
    except BaseException:
        os.close(held)
        raise
    finally:
        os.close(lifeline)
    try:
        stdout, stderr = process.communicate(timeout=time_limit)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        timed_out = True
    finally:
        os.close(held)
    return stdout, stderr, timed_out, _ended(process.returncode)


def _launch_forked(job: Job, scratch: Path, result_file: Path, tmpdir: Path, time_limit: float):
    """A fork of the environment's pre-imported TensorFlow runs tfdist_kb.proof.child (forkserver)."""
    try:
        reply = forkpool.run(job.env, str(job.snippet), str(result_file), str(tmpdir), time_limit)
    except forkpool.ServerError as error:
        raise RunnerError(f"{job.rel} on {job.env.name}: {error}") from None

    def read(name: str) -> str:
        try:
            return (scratch / name).read_text(errors="replace")
        except OSError:
            return ""
    return read("stdout"), read("stderr"), reply.timed_out, _ended(reply.exit, reply.signal)


def _declares_tensorflow_log(job: Job) -> bool:
    try:
        return bool(expect.tensorflow_log(job.snippet))
    except expect.ExpectError:
        return False


def mode_of(job: Job, mode: str) -> str:
    """'fork' where the fast mode is asked for and safe for this snippet and environment, else 'fresh'."""
    if mode != "fork" or not job.env.fork:
        return "fresh"
    try:
        return "fresh" if expect.fresh_process(job.snippet) or expect.tensorflow_log(job.snippet) else "fork"
    except expect.ExpectError:
        return "fresh"


def _execute(job: Job, time_limit: float, may_hang: bool = False, mode: str = "fresh") -> dict:
    if not job.env.interpreter.exists():
        raise RunnerError(f"environment {job.env.name} is not built (run: tfdist envs {job.env.name})")
    try:
        tasks = expect.cluster(job.snippet)
    except expect.ExpectError:  # no block (the runner's own tests): one process, as declared by the job
        tasks = None
    if tasks:
        return _execute_cluster(job, tasks, time_limit, may_hang, mode_of(job, mode))
    launch = _launch_forked if mode_of(job, mode) == "fork" else _launch_fresh
    with tempfile.TemporaryDirectory(prefix="tfdist-") as scratch:
        result_file = Path(scratch) / cluster.RESULT
        witness_file = Path(witness.file_of(result_file))
        tmpdir = Path(scratch) / "tmp"
        tmpdir.mkdir()
        started = time.monotonic()
        stdout, stderr, timed_out, ended = launch(job, Path(scratch), result_file, tmpdir, time_limit)
        if timed_out:
            if not may_hang:
                raise RunnerError(f"{job.rel} on {job.env.name}: no result after the time limit of "
                                  f"{time_limit:.0f} s; last output:\n{_last_output(stdout, stderr)}") from None
            # the documented outcome: record it like any other, if it hung on 4 real devices
            seen = _read_json(witness_file)
            ran_on = _proof(job, "timed-out", seen)  # RunnerError unless 4 replicas on 4 real devices
            replicas = sorted({s["replicas"] for s in seen["strategies"]})
            return _unexecuted(job, "timed-out", seconds=round(time.monotonic() - started, 2),
                               replicas=replicas[0] if len(replicas) == 1 else replicas, ran_on=ran_on,
                               stdout=messages.normalise(stdout or ""), stderr_tail=(stderr or "")[-2000:])
        seconds = round(time.monotonic() - started, 2)
        child = _read_json(result_file)
        if child is None:
            raise RunnerError(f"{job.rel} on {job.env.name}: the process ended ({ended}) "
                              f"without a result; last output:\n{_last_output(stdout, stderr)}")
    if child["outcome"] == "error":
        raise RunnerError(f"{job.rel} on {job.env.name}: the runner itself failed:\n{child.get('traceback')}")
    seen = child.get("witness")
    ran_on = _proof(job, child["outcome"], seen)  # RunnerError unless 4 replicas on 4 real devices
    replicas = sorted({s["replicas"] for s in seen["strategies"]})
    record = _base(job)
    message, headline = (messages.message(child.get("message") or "", traceback=child.get("traceback"))
                         if child["outcome"] == "raised" else (None, None))
    record.update({
        "python": child["python"], "tensorflow": child["tensorflow"], "keras": child["keras"],
        "keras_package": child["keras_package"],
        "devices": child["devices"], "outcome": child["outcome"],
        "exception": child.get("exception"),
        "message": message, "headline": headline,  # stored, published and compared exactly as they are
        "replicas": replicas[0] if len(replicas) == 1 else replicas, "ran_on": ran_on,
        "reduction": _reduction(seen),
        "seconds": seconds, "stdout": messages.normalise(stdout),
        # kept in the cache, not in the evidence file:
        "traceback": child.get("traceback"), "stderr_tail": stderr[-2000:], "witness": seen,
        "snippet_seconds": child.get("snippet_seconds"),
        "doctor": child.get("doctor"),  # tfdist.doctor on the snippet's objects (tests/test_doctor.py)
    })
    return record


@functools.cache
def _private_network() -> list[str]:
    """The command prefix that runs a cluster in a network namespace of its own, where only loopback
    exists (`unshare --net --map-root-user`), or [] where this machine does not allow one."""
    unshare = shutil.which("unshare")
    if unshare:
        command = [unshare, "--net", "--map-root-user"]
        try:
            if subprocess.run(command + ["true"], capture_output=True, timeout=30).returncode == 0:
                return command
        except (OSError, subprocess.TimeoutExpired):
            pass
    return []


_PORT = re.compile(r"\b(localhost|127\.0\.0\.1):(\d{2,5})\b")


def _same_ports(text: str, ports: list[int]) -> str:
    """Free ports chosen on the host (no namespace of its own) written as the fixed ones of a
    private network namespace, so that both ways of running record the same text."""
    fixed = {str(p): str(cluster.PORT_BASE + i) for i, p in enumerate(ports)}
    return _PORT.sub(lambda m: f"{m[1]}:{fixed.get(m[2], m[2])}", text or "")


def _execute_cluster(job: Job, tasks: list[tuple[str, int]], time_limit: float, may_hang: bool,
                     mode: str = "fresh") -> dict:
    """Run the snippet as a local cluster (tfdist_kb.proof.cluster), one fresh process per task, and
    judge the tasks together: the task that failed first gives the run its exception (if it raised;
    else the first raising task in the declared order); a task the launcher stopped because another
    failed is recorded as stopped."""
    environ = job.env.process_environ()
    environ["CUDA_VISIBLE_DEVICES"] = ""  # on CPUs each task is one replica (4 workers: 4 replicas)
    prefix = _private_network()
    names = [cluster.task_name(t) for t in tasks]
    with tempfile.TemporaryDirectory(prefix="tfdist-") as scratch:
        spec = Path(scratch) / "spec.json"
        spec.write_text(json.dumps({"snippet": str(job.snippet), "tasks": tasks, "python": str(job.env.interpreter),
                                    "environ": environ, "time_limit": time_limit, "private_network": bool(prefix)}))
        started = time.monotonic()
        if mode == "fork":  # the tasks forked from a pre-imported TensorFlow (forkpool's cluster servers)
            try:
                reply = forkpool.run_cluster(job.env, prefix, str(spec), time_limit + cluster.GRACE + 30)
            except forkpool.ServerError as error:
                raise RunnerError(f"{job.rel} on {job.env.name}: {error}") from None
            launcher_err, ended = "", _ended(reply.exit, reply.signal)
        else:
            lifeline, held = os.pipe()
            try:
                process = subprocess.Popen(
                    prefix + [str(job.env.interpreter), "-m", "tfdist_kb.proof.cluster", str(spec), str(lifeline)],
                    cwd=scratch, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    start_new_session=True, pass_fds=(lifeline,))
            finally:
                os.close(lifeline)
            try:
                _, launcher_err = process.communicate(timeout=time_limit + cluster.GRACE + 60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                raise RunnerError(f"{job.rel} on {job.env.name}: the cluster's launcher did not end") from None
            finally:
                os.close(held)
            ended = _ended(process.returncode)
        seconds = round(time.monotonic() - started, 2)
        summary = _read_json(Path(scratch) / "cluster.json")
        if summary is None:
            raise RunnerError(f"{job.rel} on {job.env.name}: the cluster's launcher failed ({ended}):\n"
                              f"{launcher_err[-2000:]}")
        ports = [] if summary.get("fixed_ports") else summary["ports"]
        runs = []
        for name, task, ended in zip(names, tasks, summary["tasks"]):
            folder = Path(scratch) / ended["folder"]
            result = _read_json(folder / cluster.RESULT) or {}
            read = lambda f: _same_ports((folder / f).read_text(errors="replace") if (folder / f).exists() else "", ports)
            runs.append({"task": name, "result": result, "stdout": read("stdout"), "stderr": read("stderr"),
                         "witness": result.get("witness") or _read_json(Path(witness.file_of(folder / cluster.RESULT))),
                         "stopped": ended["stopped"], "served": bool(ended.get("served")), "ended": ended["ended"]})
    for run_ in runs:
        if run_["result"].get("outcome") == "error":
            raise RunnerError(f"{job.rel} on {job.env.name}: the runner itself failed in {run_['task']}:\n"
                              f"{run_['result'].get('traceback')}")
    # the task that raised first (in time, by the clock its result records) leads: the others' errors
    # are its consequence (a peer that left a collective; an abort passed on), and several tasks may end
    # between two looks of the launcher, so the order they were seen to end in is only the tie-break
    raised = sorted((r for r in runs if r["result"].get("outcome") == "raised"),
                    key=lambda r: (r["result"].get("raised_at", float("inf")),
                                   r["task"] != summary.get("first_failed")))
    # a parameter-server cluster: a server that ended by itself (its machine lost) is the coordinator's to
    # deal with, and the run is the coordinator's (chief:0, the first task) to judge
    coordinated = any(r["task"].startswith("ps:") for r in runs) and runs[0]["task"] == "chief:0"
    lost = [r for r in runs if r["stopped"] is None and not r["result"]
            and not (coordinated and r is not runs[0])]
    if raised:
        outcome = "raised"
    elif all(r["result"].get("outcome") == "passed" or r["served"] for r in runs) or (
            coordinated and runs[0]["result"].get("outcome") == "passed"
            and all(r["served"] or not r["result"] for r in runs[1:])):
        outcome = "passed"
    elif any(r["stopped"] == "time limit" for r in runs) and not lost:
        if not may_hang:
            raise RunnerError(f"{job.rel} on {job.env.name}: no result after the time limit of {time_limit:.0f} s; "
                              + "; ".join(f"{r['task']}: {_last_output(r['stdout'], r['stderr'])}" for r in runs))
        outcome = "timed-out"
    else:
        raise RunnerError(f"{job.rel} on {job.env.name}: "
                          + "; ".join(f"{r['task']} ended ({r['ended']}) without a result: "
                                      f"{_last_output(r['stdout'], r['stderr'])}" for r in runs if not r["result"]))
    seen = [(r["task"], r["witness"]) for r in runs]
    problems = witness.cluster_problems(seen, outcome)
    if problems:
        raise RunnerError(f"{job.rel} on {job.env.name}: not evidence, the run does not prove {REPLICAS} replicas "
                          f"on {REPLICAS} distinct devices across its tasks: " + "; ".join(problems))
    ran_on = witness.cluster_ran_on(seen, outcome)
    if len(set(ran_on)) < REPLICAS:  # what the evidence holds every executed run to (evidence.problems)
        raise RunnerError(f"{job.rel} on {job.env.name}: not evidence, the run names {len(set(ran_on))} device(s) "
                          f"its replicas were on ({', '.join(ran_on) or 'none'}), not {REPLICAS} distinct ones")
    first = raised[0] if raised else runs[0]
    child = first["result"] or next((r["result"] for r in runs if r["result"]), {})
    message, headline = (messages.message(_same_ports(first["result"].get("message") or "", ports))
                         if raised else (None, None))

    def task_record(r):
        res = r["result"]
        state = res.get("outcome") or ("served" if r["served"] else "timed-out" if r["stopped"] == "time limit" else
                                       "stopped" if r["stopped"] else "ended without a result")
        out = {"task": r["task"], "outcome": state, "stdout": messages.normalise(r["stdout"])}
        if state == "raised":
            out["exception"] = res.get("exception")
            out["headline"] = messages.message(_same_ports(res.get("message") or "", ports))[1]
        return out

    record = _base(job)
    # every task stopped before it wrote a result (a documented hang): the versions are the pins',
    # which `envs.ensure` has checked against what is installed (as for any run that was stopped)
    known = child if child.get("tensorflow") else dict(_versions(job.env), python=job.env.python_version())
    record.update({
        "python": known.get("python"), "tensorflow": known.get("tensorflow"), "keras": known.get("keras"),
        "keras_package": known.get("keras_package"),
        "devices": f"{len(tasks)} processes on this machine ({', '.join(names)}), over loopback only; "
                   + (child.get("devices") or ""),
        "outcome": outcome,
        "exception": first["result"].get("exception") if raised else None,
        "message": message, "headline": headline,
        "replicas": REPLICAS, "ran_on": ran_on,
        "reduction": _reduction({"strategies": [s for _, w in seen for s in w["strategies"]]}),
        "seconds": seconds, "stdout": messages.normalise(runs[0]["stdout"]),  # the first task's (chief, worker:0)
        "tasks": [task_record(r) for r in runs],
        # kept in the cache, not in the evidence file:
        "traceback": first["result"].get("traceback"), "stderr_tail": first["stderr"][-2000:],
        "witness": dict(seen), "snippet_seconds": child.get("snippet_seconds"), "doctor": child.get("doctor"),
        "network": "a network namespace of its own" if summary["private_network"] else "the host's loopback",
    })
    return record


def _read_json(path: Path):
    """The JSON object in `path`; None if it is missing or unreadable (a process killed while
    writing it): a cache miss or no result, never a traceback."""
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


# What every record of an executed run holds, and the outcomes it can have (tfdist_kb.proof.child):
# a cached record without them (`{}`, a record of an older runner, one edited by hand) is a miss.
_RECORD_FIELDS = ("env", "snippet", "sha256", "date", "python", "tensorflow", "keras", "keras_package", "outcome",
                  "replicas", "ran_on", "seconds", "stdout")
_RECORDED_OUTCOMES = ("passed", "raised", "timed-out")


def _cached_record(job: Job, path: Path) -> dict | None:
    """The cached record of `job`, or None (a miss: it is run again) if there is none or it is not
    a whole record of this job (a `{}`, a record cut short, another snippet's or environment's)."""
    record = _read_json(path)
    if record is None or any(name not in record for name in _RECORD_FIELDS):
        return None
    if (record["snippet"], record["env"], record["sha256"]) != (job.rel, job.env.name, sha256(job.snippet)):
        return None
    if record["outcome"] not in _RECORDED_OUTCOMES:
        return None
    if record["outcome"] == "raised" and not all(isinstance(record.get(k), str) for k in ("exception", "message")):
        return None
    return record


def run(job: Job, use_cache: bool = True, time_limit: float = TIME_LIMIT, mode: str = "fresh") -> dict:
    """One job's record. `mode` 'fresh' (a new interpreter per run: what `make matrix` records) or
    'fork' (forked from a pre-imported TensorFlow where `mode_of` allows: what `make test` uses)."""
    if job.expectation.kind == "not-applicable":
        return _unexecuted(job, "not-applicable", reason=job.expectation.reason, seconds=0.0)
    cached = cache_path(job, mode)
    record = _cached_record(job, cached) if use_cache else None
    if record is not None:
        return record
    if job.expectation.kind == "hangs":
        record = _execute(job, job.expectation.seconds, may_hang=True, mode=mode)
    else:
        record = _execute(job, time_limit, mode=mode)
    record["mode"] = mode_of(job, mode)  # in the cache, not in the evidence
    files.write_atomic(cached, json.dumps(record, indent=1))
    return record


def run_all(all_jobs: list[Job], use_cache: bool = True, workers: int | None = None,
            previous: dict | None = None, mode: str = "fresh") -> dict[tuple[str, str], dict | RunnerError]:
    """Run every job; longest first (by previous seconds) to keep both cores busy to the end."""
    previous = previous or {}
    rank = {env.name: i for i, env in enumerate(dict.fromkeys(j.env for j in all_jobs))}
    # forked runs: one environment after the other (its pre-imported servers, then the next's)
    by_env = (lambda j: rank[j.env.name]) if mode == "fork" else (lambda j: 0)
    order = sorted(all_jobs, key=lambda j: (by_env(j), -(previous.get((j.rel, j.env.name), {}).get("seconds") or 30)))
    workers = workers or int(os.environ.get("TFDIST_WORKERS", os.cpu_count() or 2))

    def one(job):
        try:
            return run(job, use_cache, mode=mode)
        except RunnerError as error:
            return error

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one, order))
    return {(j.rel, j.env.name): r for j, r in zip(order, results)}


def run_matrix(selected: list[Env], use_cache: bool = True, files: list[Path] | None = None, mode: str = "fresh"):
    """Build the environments, then run every (snippet, environment) job: (jobs, results, wall s)."""
    for env in selected:
        envs.ensure(env)
    all_jobs = jobs(selected, files)
    started = time.monotonic()
    try:
        results = run_all(all_jobs, use_cache=use_cache, previous=evidence.load(), mode=mode)
    finally:
        forkpool.stop_all()
    return all_jobs, results, time.monotonic() - started


def judge(job: Job, record: dict) -> list[str]:
    """Everything wrong with a run: expectation not met, or not on 4 replicas."""
    problems = job.expectation.judge(record)
    if record.get("outcome") not in ("not-applicable", "timed-out") and record.get("replicas") != REPLICAS:
        problems.append(f"ran on {record.get('replicas')} replica(s), not {REPLICAS} "
                        f"(every strategy the snippet creates must have {REPLICAS} replicas on {REPLICAS} devices)")
    return problems
