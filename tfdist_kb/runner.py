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
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import envs, evidence, expect, messages, witness
from .envs import ROOT, Env

SNIPPETS = ROOT / "snippets"
CACHE = ROOT / ".cache" / "tfdist" / "runs"
REPLICAS = 4
TIME_LIMIT = float(os.environ.get("TFDIST_TIME_LIMIT", "240"))
# What a run's record depends on besides the snippet and the environment: the runner's own code.
_RUNNER_CODE = [Path(__file__).with_name(n) for n in
                ("child.py", "replicas.py", "witness.py", "envs.py", "runner.py", "messages.py")]


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


def cache_path(job: Job) -> Path:
    """Keyed on the snippet, on what is really installed in the environment (checked against its
    lock before any run) and on the runner's own code."""
    key = hashlib.sha256(f"{sha256(job.snippet)} {envs.installed_fingerprint(job.env)} "
                         f"{_runner_fingerprint()}".encode()).hexdigest()
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


def _proof(job: Job, outcome: str, record: dict | None) -> list[str] | None:
    """The 4-device proof of a run (witness.problems), named after the run; RunnerError if it fails.
    Returns the devices all 4 replicas ran on, for a passing run (how many replicas got to run
    before an error stopped them depends on thread timing: not recorded)."""
    problems = witness.problems(record, outcome)
    if problems:
        raise RunnerError(f"{job.rel} on {job.env.name}: not evidence, the run does not prove {REPLICAS} replicas "
                          f"on {REPLICAS} distinct devices: " + "; ".join(problems))
    return witness.ran_on(record) if outcome == "passed" else None


def _execute(job: Job, time_limit: float, may_hang: bool = False) -> dict:
    if not job.env.interpreter.exists():
        raise RunnerError(f"environment {job.env.name} is not built (run: tfdist envs {job.env.name})")
    with tempfile.TemporaryDirectory(prefix="tfdist-") as scratch:
        result_file = Path(scratch) / "result.json"
        witness_file = Path(scratch) / "result.json.witness"
        started = time.monotonic()
        process = subprocess.Popen(
            [str(job.env.interpreter), "-m", "tfdist_kb.child", str(job.snippet), str(result_file)],
            cwd=scratch, env=job.env.process_environ(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=time_limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            if not may_hang:
                raise RunnerError(f"{job.rel} on {job.env.name}: no result after the time limit of "
                                  f"{time_limit:.0f} s; last output:\n{_last_output(stdout, stderr)}") from None
            # the documented outcome: record it like any other, if it hung on 4 real devices
            seen = json.loads(witness_file.read_text()) if witness_file.exists() else None
            return _unexecuted(job, "timed-out", seconds=round(time.monotonic() - started, 2),
                               ran_on=_proof(job, "timed-out", seen), stdout=messages.normalise(stdout or ""),
                               stderr_tail=(stderr or "")[-2000:])
        seconds = round(time.monotonic() - started, 2)
        if not result_file.exists():
            raise RunnerError(f"{job.rel} on {job.env.name}: the process exited ({process.returncode}) "
                              f"without a result; last output:\n{_last_output(stdout, stderr)}")
        child = json.loads(result_file.read_text())
    if child["outcome"] == "error":
        raise RunnerError(f"{job.rel} on {job.env.name}: the runner itself failed:\n{child.get('traceback')}")
    seen = child.get("witness")
    ran_on = _proof(job, child["outcome"], seen)  # RunnerError unless 4 replicas on 4 real devices
    replicas = sorted({s["replicas"] for s in seen["strategies"]})
    record = _base(job)
    message = messages.normalise(child.get("message") or "")
    record.update({
        "python": child["python"], "tensorflow": child["tensorflow"], "keras": child["keras"],
        "keras_package": child["keras_package"],
        "devices": child["devices"], "outcome": child["outcome"],
        "exception": child.get("exception"),
        "message": messages.cap(message) if child["outcome"] == "raised" else None,
        "headline": messages.headline(message) if child["outcome"] == "raised" else None,
        "replicas": replicas[0] if len(replicas) == 1 else replicas, "ran_on": ran_on,
        "seconds": seconds, "stdout": messages.normalise(stdout),
        # kept in the cache, not in the evidence file:
        "traceback": child.get("traceback"), "stderr_tail": stderr[-2000:], "witness": seen,
    })
    return record


def run(job: Job, use_cache: bool = True, time_limit: float = TIME_LIMIT) -> dict:
    if job.expectation.kind == "not-applicable":
        return _unexecuted(job, "not-applicable", reason=job.expectation.reason, seconds=0.0)
    cached = cache_path(job)
    if use_cache and cached.exists():
        return json.loads(cached.read_text())
    if job.expectation.kind == "hangs":
        record = _execute(job, job.expectation.seconds, may_hang=True)
    else:
        record = _execute(job, time_limit)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(record, indent=1))
    return record


def run_all(all_jobs: list[Job], use_cache: bool = True, workers: int | None = None,
            previous: dict | None = None) -> dict[tuple[str, str], dict | RunnerError]:
    """Run every job; longest first (by previous seconds) to keep both cores busy to the end."""
    previous = previous or {}
    order = sorted(all_jobs, key=lambda j: -(previous.get((j.rel, j.env.name), {}).get("seconds") or 30))
    workers = workers or int(os.environ.get("TFDIST_WORKERS", os.cpu_count() or 2))

    def one(job):
        try:
            return run(job, use_cache)
        except RunnerError as error:
            return error

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one, order))
    return {(j.rel, j.env.name): r for j, r in zip(order, results)}


def run_matrix(selected: list[Env], use_cache: bool = True, files: list[Path] | None = None):
    """Build the environments, then run every (snippet, environment) job: (jobs, results, wall s)."""
    for env in selected:
        envs.ensure(env)
    all_jobs = jobs(selected, files)
    started = time.monotonic()
    results = run_all(all_jobs, use_cache=use_cache, previous=evidence.load())
    return all_jobs, results, time.monotonic() - started


def judge(job: Job, record: dict) -> list[str]:
    """Everything wrong with a run: expectation not met, or not on 4 replicas."""
    problems = job.expectation.judge(record)
    if record.get("outcome") not in ("not-applicable", "timed-out") and record.get("replicas") != REPLICAS:
        problems.append(f"ran on {record.get('replicas')} replica(s), not {REPLICAS} "
                        f"(every strategy the snippet creates must have {REPLICAS} replicas on {REPLICAS} devices)")
    return problems
