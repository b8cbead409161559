"""The time `make test` costs and what it would cost with more snippets (`tfdist bench --budget`,
part of `make bench`). Figures read from records, nothing run and nothing asserted about a time:

- per environment, the snippet runs and seconds per run: fresh processes from the evidence
  (`make matrix`), forks from the runner's cache of the current snippets (what `make test` runs);
- the last run of the whole test suite, split by test file (.cache/test-times.json, written by the
  pytest plugin: tfdist_kb.commands.pytest_plugin), with when and on which commit it was measured;
- make-test time projected to 2x and 4x the snippets: each file's time is a part that grows with
  the snippets (tests run once per snippet, job or entry, the doctor tests, the fork/fresh
  equivalence sample) and a fixed part.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from ..proof import envs, evidence, runner

TIMES = envs.ROOT / ".cache" / "test-times.json"
TOP = 8
MODEL = ("model: make test = fixed + scaling x (snippets / today's snippets); scaling = the tests run once per "
         "snippet, (snippet, environment) or entry, the doctor tests and the fork/fresh equivalence sample; "
         "fixed = the rest; from the last measured run, its cache as it was")


def _current() -> dict[str, str]:
    """Each current snippet's path relative to the checkout, and its sha256."""
    return {p.relative_to(envs.ROOT).as_posix(): runner.sha256(p) for p in runner.snippet_files()}


def fork_records(cache: Path | None = None, current: dict[str, str] | None = None) -> dict[tuple, dict]:
    """The runner's cached fork records of the current snippets, by (snippet, environment): the
    newest where the cache holds several (older runner code)."""
    current = _current() if current is None else current
    found: dict[tuple, tuple] = {}
    for path in (cache or runner.CACHE).glob("*/*.json"):
        try:
            record = json.loads(path.read_text())
            stamp = path.stat().st_mtime_ns
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("mode") != "fork" or record.get("seconds") is None:
            continue
        key = (record.get("snippet"), record.get("env"))
        if current.get(key[0]) == record.get("sha256") and stamp > found.get(key, (0, None))[0]:
            found[key] = (stamp, record)
    return {key: record for key, (_, record) in found.items()}


def _executed(records: list[dict]) -> list[float]:
    """The seconds of the runs that executed (not the not-applicable ones)."""
    return [r["seconds"] for r in records if r.get("outcome") in evidence.EXECUTED and r.get("seconds") is not None]


def _row(records: list[dict]) -> str:
    ran = _executed(records)
    if not ran:
        return f"{0:>5} {'-':>8} {'-':>7}"
    return f"{len(ran):>5} {sum(ran):>8.1f} {statistics.mean(ran):>7.2f}"


def _mean(records: list[dict]) -> float | None:
    ran = _executed(records)
    return statistics.mean(ran) if ran else None


def per_environment(records: dict, forks: dict, say=print) -> None:
    """Snippet runs per environment, single-process and cluster apart, each fresh (the evidence) and
    forked (the runner's cache); then what a cluster run costs against a single-process one."""
    say("snippet runs per environment (executed ones), seconds each, runs in parallel: single = one process, "
        "cluster = a local cluster (one process per task: tfdist_kb.proof.cluster); fresh = the evidence `make "
        "matrix` recorded (fresh processes), fork = the runner's cache of the current snippets, forked from a "
        "TensorFlow imported once (how `make test` runs them)")
    say(f"{'':16} {'single, fresh':>22}  {'single, fork':>22}  {'cluster, fresh':>22}  {'cluster, fork':>22}")
    say(f"{'environment':16} " + "  ".join([f"{'runs':>5} {'seconds':>8} {'s/run':>7}"] * 4))
    ratios = []
    for env in envs.load():
        mine = [r for (_, name), r in records.items() if name == env.name]
        forked = [r for (_, name), r in forks.items() if name == env.name]
        columns = ([r for r in mine if not r.get("tasks")], [r for r in forked if not r.get("tasks")],
                   [r for r in mine if r.get("tasks")], [r for r in forked if r.get("tasks")])
        say(f"{env.name:16} " + "  ".join(_row(column) for column in columns))
        for single, cluster, how in ((columns[0], columns[2], "fresh"), (columns[1], columns[3], "fork")):
            if _mean(single) and _mean(cluster):
                ratios.append(f"{env.name} {how} {_mean(cluster) / _mean(single):.1f}x")
    if ratios:
        say("a cluster run against a single-process run (mean seconds per run): " + ", ".join(ratios))


def last_test_run(path: Path, say=print) -> dict | None:
    """Print the last whole-suite run by test file; its figures, or None if there is none (or unreadable)."""
    shown = path.relative_to(envs.ROOT) if path.is_relative_to(envs.ROOT) else path
    if not path.exists():
        say(f"last make test: none measured yet ({shown} is written at the end of a run of the whole suite: make test)")
        return None
    try:
        figures = json.loads(path.read_text())
        files = {name: (float(v["seconds"]), float(v["scaling_seconds"])) for name, v in figures["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        say(f"last make test: {shown} is not readable ({type(error).__name__}); the next make test rewrites it")
        return None
    total = sum(seconds for seconds, _ in files.values()) or 1e-9
    executed = figures.get("executed_runs") or {}
    say(f"last make test: measured {figures.get('measured', '?')} on commit {(figures.get('commit') or 'unknown')[:12]}"
        f" (TFDIST_ENVS={figures.get('envs', '?')}, {figures.get('snippets', '?')} snippets), {total:.1f} s in tests "
        f"({figures.get('wall_seconds', '?')} s wall); executed {executed.get('fork', 0)} forked and "
        f"{executed.get('fresh', 0)} fresh snippet runs, {figures.get('notebook_kernels', 0)} notebook kernel(s)")
    say(f"  {'seconds':>8} {'share':>6} {'scaling':>8}  test file")
    ranked = sorted(files.items(), key=lambda item: -item[1][0])
    for name, (seconds, scaling) in ranked[:TOP]:
        say(f"  {seconds:>8.1f} {seconds / total:>6.1%} {scaling:>8.1f}  {name}")
    rest = ranked[TOP:]
    if rest:
        say(f"  {sum(s for _, (s, _) in rest):>8.1f} {sum(s for _, (s, _) in rest) / total:>6.1%} "
            f"{sum(c for _, (_, c) in rest):>8.1f}  {len(rest)} other file(s)")
    return {"files": files, "total": total}


def projection(files: dict[str, tuple[float, float]], say=print) -> dict[int, float]:
    """make-test seconds at 1x, 2x and 4x the snippets under MODEL."""
    fixed = sum(seconds - scaling for seconds, scaling in files.values())
    scaling = sum(scaling for _, scaling in files.values())
    projected = {n: fixed + scaling * n for n in (1, 2, 4)}
    say(f"projected make test: {projected[1]:.0f} s now, {projected[2]:.0f} s at 2x the snippets, "
        f"{projected[4]:.0f} s at 4x ({fixed:.0f} s fixed + {scaling:.0f} s scaling)")
    say(MODEL)
    return projected


def report(times: Path | None = None, say=print) -> int:
    per_environment(evidence.load(), fork_records(), say)
    last = last_test_run(times or TIMES, say)
    if last:
        projection(last["files"], say)
    return 0
