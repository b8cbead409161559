"""The knowledge base's commands, reached through `tfdist` (the user-facing package's command,
which answers `tfdist explain` itself and hands the others to this module).

  tfdist envs [ENV,...]          create/update the pinned TensorFlow environments
  tfdist matrix [--envs ENV,...] [--snippets TFDnnn,...] [--no-cache] [--notebooks-only]   run the snippets
                                 (every one, or those of the named entries/files) everywhere, merge into
                                 snippets/evidence.json; then their entries' notebooks whose inputs changed,
                                 each in a kernel, into snippets/notebooks.json
  tfdist run SNIPPET [--env ENV] run one snippet on 4 replicas and show what happened
  tfdist bench [--site-only|--budget]   the site (build time, search index and entry-page transfer per language,
                                 Lighthouse mobile on every entry page in both languages),
                                 the matcher's latency on the real-error corpus, then the matrix: per environment and a no-change re-run; then the test
                                 budget (--budget: that alone): runs per environment, the last make test
                                 by test file, make test projected to 2x and 4x the snippets
  tfdist lock [ENV,...]          recompile the lock files from tfdist_kb/proof/envs/*.in
  tfdist errors                  write the tfdist package's error index (registry + evidence)
  tfdist coverage                which real error pastes (tests/corpus) reach their entry first, by family:
                                 the coverage page's table; exit 1 on a false link or a labelled paste missed
  tfdist drift [--channel nightly]   the newest TensorFlow/Keras releases against the evidence
  tfdist new-entry TITLE [--dry-run]   a new entry: next free ID, both pages, two snippets, registry line
  tfdist gpu-check [--python PY] every snippet on this machine's GPUs: a table, and its evidence
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from tfdist.cli import one_line
from tfdist.cli import shown as echoed  # user input in an error message, capped

from ..proof import envs, evidence, expect, files, forkpool, runner
from ..site import coverage, errors, registry


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one short line (it would print the usage first, and repeat a
    bad argument of any length)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {one_line(message, 200)} (see {self.prog} --help)\n")


def cmd_envs(args) -> int:
    for env in envs.select(args.envs):
        envs.ensure(env, rebuild=getattr(args, "rebuild", False))
        print(f"[envs] {env.name}: ready ({env.path.relative_to(envs.ROOT)})")
    return 0


def cmd_lock(args) -> int:
    for env in envs.select(args.envs):
        envs.lock(env)
        print(f"[lock] {env.lock.relative_to(envs.ROOT)}")
    return 0


def cmd_errors(args) -> int:
    path = errors.write_package_data()
    print(f"[errors] wrote {path.relative_to(envs.ROOT)}")
    return 0


def cmd_coverage(args) -> int:
    """The coverage page's figures in a terminal (tfdist_kb.site.coverage)."""
    try:
        found = coverage.compute()
    except coverage.CoverageError as error:
        raise UsageError(f"coverage: {error}") from None
    print(coverage.table(found))
    return 1 if found.false_links or found.misses else 0


def _matcher_latency() -> None:
    """`tfdist bench`: the matcher's time on every paste of the real-error corpus."""
    try:
        figures = coverage.latency(coverage.compute())
    except coverage.CoverageError as error:
        raise UsageError(f"bench: {error}") from None
    print(f"tfdist.matcher on the corpus: {figures['pastes']} pastes, total {figures['total_ms']:.1f} ms, "
          f"per paste median {figures['median_ms']:.3f} ms, max {figures['max_ms']:.2f} ms", flush=True)


def cmd_matrix(args) -> int:
    selected = envs.select(args.envs)
    chosen = _chosen_snippets(args.snippets)
    for folder in (evidence.PATH.parent, runner.CACHE):  # a read-only snippets/ or cache stops it before any run
        files.check_writable(folder)
    if args.notebooks_only:
        return _record_notebooks(args, selected, chosen)
    all_jobs, results, wall = runner.run_matrix(selected, not args.no_cache, files=chosen)
    broken = [r for r in results.values() if isinstance(r, runner.RunnerError)]
    for error in broken:
        print(f"[matrix] ERROR {error}", file=sys.stderr)
    if broken:
        print(f"[matrix] {len(broken)} run(s) did not complete; evidence not written", file=sys.stderr)
        return 1
    problems = 0
    for job in all_jobs:
        for problem in runner.judge(job, results[(job.rel, job.env.name)]):
            problems += 1
            print(f"[matrix] {job.rel} on {job.env.name}: {problem}", file=sys.stderr)
    names = {e.name for e in envs.load()}
    ran = {(job.rel, job.env.name) for job in all_jobs}
    with evidence.locked():  # another `tfdist matrix --snippets` may be merging its own runs
        # records of other environments and of snippets not selected stay
        kept = {k: v for k, v in evidence.load().items()
                if k[1] in names and (envs.ROOT / k[0]).exists() and (chosen is None or k not in ran)
                and (chosen is not None or k[1] not in {e.name for e in selected})}
        kept.update(results)
        evidence.save(list(kept.values()), [e.name for e in envs.load()])
    print(f"[matrix] {len(all_jobs)} runs in {wall:.1f} s; wrote {evidence.PATH.relative_to(envs.ROOT)}"
          + (f"; {problems} unexpected outcome(s)" if problems else ""))
    return max(1 if problems else 0, _record_notebooks(args, selected, chosen))


def _record_notebooks(args, selected, chosen) -> int:
    """After the snippets: the notebooks (of every entry, or of the entries `--snippets` names) whose
    inputs changed since their recorded run, run in a kernel, into snippets/notebooks.json. They show
    the default environment's records: with `--envs` leaving it out, nothing to do."""
    from ..site import notebooks

    default = envs.default()
    if default.name not in {e.name for e in selected}:
        print(f"[notebooks] not run: they show {default.name}'s runs, which --envs leaves out")
        return 0
    entries = None if chosen is None else [e for e in notebooks.published() if e.id in {p.parent.name for p in chosen}]
    started = time.monotonic()
    failed = notebooks.record(entries, again=args.no_cache)
    print(f"[notebooks] {time.monotonic() - started:.1f} s")
    for entry in failed:
        print(f"[notebooks] {entry}: the notebook did not run as its snippets declare (snippets/notebooks.json)",
              file=sys.stderr)
    return 1 if failed else 0


def _chosen_snippets(spec: str | None) -> list[Path] | None:
    """`--snippets TFD007,TFD016/x.py`: the snippet files of those entries or those files; None: all."""
    if not spec:
        return None
    chosen = []
    for item in (part.strip() for part in spec.split(",") if part.strip()):
        found = sorted((runner.SNIPPETS / item).glob("*.py")) if "/" not in item else [runner.SNIPPETS / item]
        if not found or not all(path.is_file() for path in found):
            raise UsageError(f"--snippets: no snippet file for {echoed(item)} (an entry ID or TFDnnn/file.py)")
        chosen += found
    return chosen


def cmd_run(args) -> int:
    path = Path(args.snippet).resolve()
    try:
        found = path.is_file()
    except OSError:  # e.g. a name too long to be a file's
        found = False
    if not found:
        raise UsageError(f"no such snippet file: {echoed(args.snippet)}")
    env = envs.select(args.env)[0]
    envs.ensure(env)
    job = runner.jobs([env], [path])[0]
    try:
        record = runner.run(job, use_cache=False, mode=args.mode)
    finally:
        forkpool.stop_all()
    if record.get("stdout"):
        print(record["stdout"])
    shown = {k: record.get(k) for k in ("env", "tensorflow", "keras", "replicas", "devices", "reduction", "ran_on", "outcome",
                                        "exception", "message", "seconds", "mode")}
    print(json.dumps(shown, indent=1))
    problems = runner.judge(job, record)
    for problem in problems:
        print(f"UNEXPECTED: {problem}", file=sys.stderr)
    return 1 if problems else 0


DOCTOR_BENCH = """
import statistics, time
from tfdist_kb.proof.replicas import provide_replicas
provide_replicas()
import tensorflow as tf
import tfdist
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = x = tf.keras.Input(shape=(8,))
    for _ in range(50):
        x = tf.keras.layers.Dense(8)(x)
    model = tf.keras.Model(inputs, x)
    optimizer = tf.keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
assert len(model.variables) == 100 and tfdist.doctor(strategy, model, optimizer) == []
times = []
for _ in range(5):
    started = time.perf_counter()
    tfdist.doctor(strategy, model, optimizer)
    times.append(time.perf_counter() - started)
print("tfdist.doctor             median %.1f ms over 5 calls (%d replicas; a model of %d variables and its "
      "built Adam, %d variables)" % (statistics.median(times) * 1000, strategy.num_replicas_in_sync,
                                     len(model.variables), len(optimizer.variables)))
"""


def cmd_bench(args) -> int:
    import os
    import subprocess

    from . import budget, sitebench

    if args.budget:  # the test budget alone: read from records, nothing built or run
        return budget.report()
    # The site first (strict build, search index, entry-page transfer, Lighthouse on every entry page):
    # figures, no assertions.
    try:
        sitebench.report()
    except RuntimeError as error:
        print(f"tfdist bench: {error}", file=sys.stderr)
        raise UsageError(f"bench: {str(error).splitlines()[0]}")
    _matcher_latency()
    if args.site_only:
        return 0
    cores = os.cpu_count() or 1
    # `tfdist explain` as a process, beside the interpreter's own start-up, measured in the same run
    # (interleaved): median wall time of 20 runs each, on a message that a snippet really raised.
    environ = dict(os.environ)
    package = str(envs.ROOT / "tfdist" / "src")
    environ["PYTHONPATH"] = os.pathsep.join([package] + [p for p in [environ.get("PYTHONPATH")] if p])
    index = json.loads(errors.PACKAGE_DATA.read_text())
    message = next((f"{run['exception']}: {run['headline']}" for entry in index["entries"]
                    for run in entry.get("reproduced") or []),
                   "ValueError: Trying to create optimizer slot variable under the scope for tf.distribute.Strategy")
    commands = {"python -m tfdist explain": [sys.executable, "-m", "tfdist", "explain", message],
                "python -c pass": [sys.executable, "-c", "pass"]}
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(20):
        for name, command in commands.items():
            started = time.perf_counter()
            done = subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            seconds[name].append(time.perf_counter() - started)
            if done.returncode not in (0, 1):
                raise UsageError(f"{name} failed: {done.stderr.decode(errors='replace').strip()[-300:]}")
    for name, values in seconds.items():
        print(f"{name:26} median {statistics.median(values) * 1000:6.1f} ms over {len(values)} runs"
              + (f" (message: {message[:60]!r})" if "explain" in name else ""), flush=True)
    # tfdist.doctor, one call, in the default environment: a model of 100 variables (50 Dense layers)
    # and its Adam, built in the scope of a MirroredStrategy on 4 replicas; median of 5 calls.
    default = envs.default()
    if envs.is_ready(default):
        doctor_environ = default.process_environ()
        doctor_environ["PYTHONPATH"] = os.pathsep.join([str(envs.ROOT), package])
        done = subprocess.run([str(default.interpreter), "-c", DOCTOR_BENCH], env=doctor_environ,
                              capture_output=True, text=True)
        if done.returncode or not done.stdout.strip():
            raise UsageError(f"bench: tfdist.doctor on {default.name} failed: {one_line(done.stderr[-300:])}")
        print(f"{done.stdout.strip().splitlines()[-1]} on {default.name}", flush=True)
    else:
        print(f"tfdist.doctor             not measured: {default.name} is not built (tfdist envs {default.name})")
    # The snippet matrix, per environment, in both modes side by side: fresh processes (what
    # `make matrix` records) and forks of a pre-imported TensorFlow (what `make test` uses).
    # overhead = a run's seconds minus the snippet's own work (child.py times the exec alone).
    print(f"{'environment':16} {'runs':>4} {'fresh wall':>10} {'fork wall':>9} {'ratio':>6} {'fresh med':>9} "
          f"{'fork med':>8} {'ratio':>6} {'fresh ovh':>9} {'fork ovh':>8}", flush=True)
    totals = {"fresh": 0.0, "fork": 0.0}
    for env in envs.select(args.envs):
        row = {}
        for mode in ("fresh", "fork"):
            _, results, wall = runner.run_matrix([env], use_cache=False, mode=mode)
            ran = [r for r in results.values() if isinstance(r, dict) and r["outcome"] != "not-applicable"]
            failed = [r for r in results.values() if not isinstance(r, dict)]
            if failed:
                raise UsageError(f"bench: {env.name} ({mode}): {str(failed[0]).splitlines()[0]}")
            overheads = [r["seconds"] - r["snippet_seconds"] for r in ran if r.get("snippet_seconds") is not None]
            row[mode] = (len(ran), wall, statistics.median(r["seconds"] for r in ran) if ran else float("nan"),
                         statistics.median(overheads) if overheads else float("nan"))
            totals[mode] += wall
        (runs, fresh_wall, fresh_med, fresh_ovh), (_, fork_wall, fork_med, fork_ovh) = row["fresh"], row["fork"]
        print(f"{env.name:16} {runs:>4} {fresh_wall:>10.1f} {fork_wall:>9.1f} {fork_wall / fresh_wall:>6.2f} "
              f"{fresh_med:>9.2f} {fork_med:>8.2f} {fork_med / fresh_med:>6.2f} {fresh_ovh:>9.2f} {fork_ovh:>8.2f}",
              flush=True)
    print(f"{'all':16} {'':>4} {totals['fresh']:>10.1f} {totals['fork']:>9.1f} "
          f"{totals['fork'] / totals['fresh']:>6.2f}   (fork wall as a share of fresh: {totals['fork'] / totals['fresh']:.0%})")
    started = time.monotonic()
    runner.run_matrix(envs.select(args.envs), use_cache=True, mode="fork")
    print(f"no-change re-run of the matrix: {time.monotonic() - started:.1f} s (cache keyed on the snippet, the packages installed in its environment, the runner's code and the mode)")
    print(f"({cores} cores, {os.environ.get('TFDIST_WORKERS') or cores} runs at a time; wall s per environment; "
          f"med = median seconds of one run; ovh = median seconds of a run beyond the snippet's own work; "
          f"fork wall includes starting the pre-imported TensorFlow)")
    print(flush=True)
    return budget.report()


def cmd_gpu_check(args) -> int:
    from . import gpucheck

    try:
        return gpucheck.main(args.python, args.like, args.snippets, args.workers)
    except gpucheck.GpuCheckError as error:
        raise UsageError(f"gpu-check: {error}") from None


def cmd_new_entry(args) -> int:
    from . import scaffold

    try:
        made = scaffold.plan(args.title) if args.dry_run else scaffold.create(args.title)
    except scaffold.ScaffoldError as error:
        raise UsageError(f"new-entry: {error}") from None
    verb = "would " if args.dry_run else ""
    for path in made.files:
        print(f"[new-entry] {made.id}: {verb}create {path.relative_to(made.root)}")
    print(f"[new-entry] {made.id}: {verb}add its line to {made.registry.relative_to(made.root)}")
    if not args.dry_run:
        print(f"[new-entry] next: make the failing snippet raise the real message (tfdist run snippets/{made.id}/failing.py); "
              f"every TODO(author) must go before make test passes (docs/contributing.md)")
    return 0


def cmd_drift(args) -> int:
    from . import drift

    return drift.main(args.channel)


def main(argv=None) -> int:
    parser = _Parser(prog="tfdist", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func in (("envs", cmd_envs), ("lock", cmd_lock)):
        p = sub.add_parser(name)
        p.add_argument("envs", nargs="?", default="all")
        p.set_defaults(func=func)
        if name == "envs":
            p.add_argument("--rebuild", action="store_true", help="reinstall from the lock file")
    p = sub.add_parser("matrix", help="run every snippet in every environment; write the evidence")
    p.add_argument("--envs", default="all")
    p.add_argument("--snippets", default=None, help="only these entries or files (TFD007,TFD016/x.py); other records stay")
    p.add_argument("--no-cache", action="store_true", help="run every snippet and every notebook again")
    p.add_argument("--notebooks-only", action="store_true",
                   help="only the notebooks whose inputs changed (snippets/notebooks.json), not the snippets")
    p.set_defaults(func=cmd_matrix)
    p = sub.add_parser("run", help="run one snippet on 4 replicas")
    p.add_argument("snippet")
    p.add_argument("--env", default="default")
    p.add_argument("--mode", choices=("fresh", "fork"), default="fresh",
                   help="fresh: a new interpreter (as make matrix); fork: from a pre-imported TensorFlow (as make test)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("errors", help="write the tfdist package's error index from the registry and the evidence")
    p.set_defaults(func=cmd_errors)
    p = sub.add_parser("coverage", help="which real error pastes reach their entry first, by family (the coverage page)")
    p.set_defaults(func=cmd_coverage)
    p = sub.add_parser("bench", help="measure the site and the matcher, then time the matrix")
    p.add_argument("--envs", default="all")
    p.add_argument("--site-only", action="store_true", help="the site's figures only (no TensorFlow environments)")
    p.add_argument("--budget", action="store_true",
                   help="the test budget only: runs per environment, the last make test by file, projections")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("drift", help="run every snippet on the newest TensorFlow/Keras; differences from the evidence")
    p.add_argument("--channel", choices=("release", "nightly"), default="release",
                   help="release: newest on PyPI; nightly: tf-nightly, keras-nightly, tf-keras-nightly")
    p.set_defaults(func=cmd_drift)
    p = sub.add_parser("gpu-check", help="run every snippet on this machine's GPUs; a table, and snippets/gpu/MACHINE.json")
    p.add_argument("--python", help="an interpreter whose TensorFlow sees the GPUs (default: build the GPU environment)")
    p.add_argument("--like", help="the pinned environment whose expectations apply (default: same TensorFlow)")
    p.add_argument("--snippets", default="*", help="only snippets matching this pattern, e.g. 'TFD001/*'")
    p.add_argument("--workers", type=int, help="runs at a time (default: 1 on 4 real GPUs, else up to 4)")
    p.set_defaults(func=cmd_gpu_check)
    p = sub.add_parser("new-entry", help="scaffold a new entry: next free ID, both pages, two snippets, registry line")
    p.add_argument("title", help="the question, one line")
    p.add_argument("--dry-run", action="store_true", help="say what would be created; write nothing")
    p.set_defaults(func=cmd_new_entry)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, registry.RegistryError, envs.EnvError, expect.ExpectError, runner.RunnerError,
            errors.DeclarationError, evidence.EvidenceError) as error:
        print(f"tfdist: {one_line(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of the output has gone: `tfdist` (tfdist.cli.main) ends quietly
        raise
    except OSError as error:  # a file or folder the command needs cannot be written or read (files.WriteError)
        print(f"tfdist: {one_line(_describe(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _describe(error: OSError) -> str:
    """An OSError in one line: files.WriteError says which file and that it is unchanged; others
    name the file and the system's reason."""
    if isinstance(error, files.WriteError) or not error.filename:
        return str(error)
    return f"{error.filename}: {error.strerror or error}"


if __name__ == "__main__":
    from tfdist.cli import main as tfdist_main  # the same guard (a closed pipe, Ctrl-C) as `tfdist`

    sys.exit(tfdist_main())
