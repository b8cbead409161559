"""pytest plugin (loaded by pyproject's addopts): the snippet matrix as tests, and 4 replicas
for the inline code blocks that pytest-codeblocks runs inside the pytest process.

TFDIST_ENVS selects environments: unset or 'all' (make test), 'default' (make test-fast),
or a comma-separated list of names. Snippets run forked from a pre-imported TensorFlow where that
is safe (runner.mode_of); TFDIST_MODE=fresh runs each in a new interpreter, as `make matrix` does.

The budget: at the end of every run, the slowest test files (seconds, share of the total) and how
many snippet runs really executed (a child process, fork or fresh; cached records not counted),
written to .cache/test-times.json after a run of the whole suite (`make test`), to
.cache/test-times-partial.json after a run of a part (paths, -k, -m, --lf given); `tfdist bench
--budget` reads them. Each file's seconds are split into the part that grows with the number of
snippets (`scaling`: tests parametrised by snippet, environment job or entry, the doctor tests, the
fork/fresh equivalence sample) and the rest.
"""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time

import pytest

from ..proof import envs, expect, files, runner

_replicas_ready = False
_RESULTS = pytest.StashKey[dict]()
_BLOCKS = pytest.StashKey[int]()
_NOTES = pytest.StashKey[list]()
_TALLY = pytest.StashKey[dict]()
_STARTED = pytest.StashKey[tuple]()  # (time.time_ns(), time.monotonic()) at the session's start
_TIMES = pytest.StashKey[dict]()  # test file -> [seconds, seconds of its scaling tests]
TIMES = envs.ROOT / ".cache" / "test-times.json"
PARTIAL_TIMES = envs.ROOT / ".cache" / "test-times-partial.json"
TOP = 8
# Tests that run once per snippet (or per snippet and environment, or per entry, whose snippets they run)
_SCALING_PARAMS = {"job", "case", "entry"}
_SCALING_FILES = {"test_doctor.py"}
_SCALING_TESTS = {"test_every_snippet_gives_the_same_record_forked_and_fresh"}


def note(config, line: str) -> None:
    """A line for the terminal summary (e.g. which snippets a sampled test compared)."""
    config.stash.setdefault(_NOTES, []).append(line)


def tally(config, what: str, name: str) -> None:
    """Count `name` under `what`: one summary line per `what`, naming them all."""
    config.stash.setdefault(_TALLY, {}).setdefault(what, []).append(name)


def pytest_sessionstart(session):
    session.config.stash[_STARTED] = (time.time_ns(), time.monotonic())


def _scales(item) -> bool:
    callspec = getattr(item, "callspec", None)
    return bool((callspec and _SCALING_PARAMS & set(callspec.params)) or item.path.name in _SCALING_FILES
                or getattr(item, "originalname", None) in _SCALING_TESTS)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's seconds (setup, call, teardown) to the item's file; a session fixture's setup
    counts where it first ran."""
    outcome = yield
    report = outcome.get_result()
    entry = item.config.stash.setdefault(_TIMES, {}).setdefault(report.nodeid.split("::")[0], [0.0, 0.0])
    entry[0] += report.duration
    if _scales(item):
        entry[1] += report.duration


NOTEBOOK_KERNELS = pytest.StashKey[int]()  # notebooks tests/test_notebooks.py ran in a kernel


def pytest_configure(config):
    """`bash` blocks on the pages call the project's commands (`tfdist ...`): find them next to
    this interpreter, however pytest was started."""
    here = os.path.dirname(sys.executable)
    if here not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")


def selected_envs():
    try:
        return envs.select(os.environ.get("TFDIST_ENVS") or "all")
    except envs.EnvError as error:
        raise pytest.UsageError(f"TFDIST_ENVS: {error}") from None


def pytest_generate_tests(metafunc):
    if "job" not in metafunc.fixturenames:
        return
    params, ids = [], []
    for path in runner.snippet_files():
        rel = f"{path.parent.name}/{path.name}"
        try:
            table = runner.expectations(path)
        except expect.ExpectError as error:
            params.append(error)
            ids.append(f"{rel}@declaration")
            continue
        for env in selected_envs():
            params.append(runner.Job(path, env, table[env.name]))
            ids.append(f"{rel}@{env.name}")
    metafunc.parametrize("job", params, ids=ids)


@pytest.fixture(scope="session")
def matrix(request):
    """Every (snippet, environment) result, run in parallel once per session (cached on inputs)."""
    well_formed = []
    for path in runner.snippet_files():
        try:
            runner.expectations(path)
            well_formed.append(path)
        except expect.ExpectError:
            continue  # reported by its own test
    use_cache = os.environ.get("TFDIST_NO_CACHE") != "1"
    mode = os.environ.get("TFDIST_MODE") or "fork"  # fresh processes: TFDIST_MODE=fresh
    try:
        _, results, _ = runner.run_matrix(selected_envs(), use_cache, well_formed, mode=mode)
    except envs.EnvError as error:
        pytest.exit(f"tfdist: {error}", returncode=3)
    request.config.stash[_RESULTS] = results
    return results


def _is_codeblock(item) -> bool:
    return type(item).__module__.startswith("pytest_codeblocks")


def pytest_runtest_setup(item):
    global _replicas_ready
    if not _is_codeblock(item):
        return
    if not _replicas_ready:
        from ..proof.replicas import provide_replicas

        provide_replicas()
        _replicas_ready = True
    import tensorflow as tf

    devices = tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU")
    assert len(devices) == runner.REPLICAS, f"inline blocks need {runner.REPLICAS} devices, found {devices}"
    item.config.stash[_BLOCKS] = item.config.stash.get(_BLOCKS, 0) + 1


def pytest_terminal_summary(terminalreporter, config):
    """Say on how many replicas things really ran: the figure the site promises."""
    results = config.stash.get(_RESULTS, None)
    if results is not None:
        records = [r for r in results.values() if isinstance(r, dict)]
        ran = [r for r in records if r["outcome"] not in ("not-applicable", "timed-out")]
        replicas = sorted({str(r.get("replicas")) for r in ran})
        devices = sorted({r.get("devices") for r in ran if r.get("devices")})
        envs_seen = sorted({r["env"] for r in records})
        terminalreporter.write_line(
            f"tfdist: {len(results)} snippet runs in {len(envs_seen)} environment(s): {len(ran)} executed on "
            f"{'/'.join(replicas) or '-'} replicas ({'; '.join(devices)}), "
            f"{sum(r['outcome'] == 'timed-out' for r in records)} documented hang(s), "
            f"{sum(r['outcome'] == 'not-applicable' for r in records)} not applicable (reason recorded), "
            f"{len(results) - len(records)} could not run")
    blocks = config.stash.get(_BLOCKS, 0)
    if blocks:
        terminalreporter.write_line(f"tfdist: {blocks} inline code block(s) executed with {runner.REPLICAS} devices")
    for line in config.stash.get(_NOTES, []):
        terminalreporter.write_line(f"tfdist: {line}")
    for what, names in config.stash.get(_TALLY, {}).items():
        terminalreporter.write_line(f"tfdist: {what}: {len(names)} ({', '.join(names)})")
    _budget(terminalreporter, config)


def executed_runs(since_ns: int, cache=None) -> dict[str, int]:
    """Snippet runs that really executed (a child process) since `since_ns`, by mode: the run
    records the runner wrote into its cache since then (a cached record is only read)."""
    counts = {"fork": 0, "fresh": 0}
    for path in (cache or runner.CACHE).glob("*/*.json"):
        try:
            if path.stat().st_mtime_ns < since_ns:
                continue
            mode = json.loads(path.read_text()).get("mode") or "fresh"
        except (OSError, ValueError, AttributeError):
            continue
        counts[mode] = counts.get(mode, 0) + 1
    return counts


def _whole_suite(config) -> bool:
    """No paths, -k, -m or --lf/--ff/--sw given: the run `make test` makes."""
    option = config.option
    paths = [a for a in config.invocation_params.args if not str(a).startswith("-")
             and (envs.ROOT / str(a).split("::")[0]).exists()]
    return not (paths or option.keyword or option.markexpr or getattr(option, "lf", False)
                or getattr(option, "failedfirst", False) or getattr(option, "stepwise", False))


def _commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=envs.ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _budget(terminalreporter, config) -> None:
    """The slowest test files, the executed snippet runs, and the figures written for `tfdist bench`."""
    times = config.stash.get(_TIMES, {})
    started = config.stash.get(_STARTED, None)
    if not times or started is None:
        return
    total = sum(seconds for seconds, _ in times.values()) or 1e-9
    executed = executed_runs(started[0])
    kernels = config.stash.get(NOTEBOOK_KERNELS, 0)
    write = terminalreporter.write_line
    write(f"tfdist: slowest test files (of {total:.1f} s in tests, {len(times)} files):")
    for path, (seconds, _) in sorted(times.items(), key=lambda item: -item[1][0])[:TOP]:
        write(f"    {seconds:8.1f} s {seconds / total:5.1%}  {path}")
    write(f"tfdist: snippet runs executed in a child process: {executed.get('fork', 0)} forked, "
          f"{executed.get('fresh', 0)} fresh (cached records not counted); notebook kernels started: {kernels}")
    whole = _whole_suite(config)
    figures = {"measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "commit": _commit(), "whole_suite": whole, "args": [str(a) for a in config.invocation_params.args],
               "envs": os.environ.get("TFDIST_ENVS") or "all", "snippets": len(runner.snippet_files()),
               "wall_seconds": round(time.monotonic() - started[1], 1),
               "files": {path: {"seconds": round(seconds, 2), "scaling_seconds": round(scaling, 2)}
                         for path, (seconds, scaling) in sorted(times.items())},
               "executed_runs": executed, "notebook_kernels": kernels}
    target = TIMES if whole else PARTIAL_TIMES
    try:
        files.write_atomic(target, json.dumps(figures, indent=1) + "\n")
    except OSError as error:
        write(f"tfdist: the test times were not written: {error}")
        return
    write(f"tfdist: per-file seconds written to {target.relative_to(envs.ROOT)} (`tfdist bench --budget` reads "
          f"{TIMES.relative_to(envs.ROOT)}, the last run of the whole suite)")
