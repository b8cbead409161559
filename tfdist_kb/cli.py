"""The knowledge base's commands, reached through `tfdist` (the user-facing package's command,
which answers `tfdist explain` itself and hands the others to this module).

  tfdist envs [ENV,...]          create/update the pinned TensorFlow environments
  tfdist matrix [--envs ENV,...] [--no-cache]   run every snippet everywhere, write snippets/evidence.json
  tfdist run SNIPPET [--env ENV] run one snippet on 4 replicas and show what happened
  tfdist bench [--site-only]     the site (build time, entry-page transfer, search index, Lighthouse),
                                 then the matrix: per environment and a no-change re-run
  tfdist lock [ENV,...]          recompile the lock files from tfdist_kb/envs/*.in
  tfdist errors                  write the tfdist package's error index (registry + evidence)
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from . import envs, errors, evidence, expect, registry, runner


class UsageError(Exception):
    pass


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


def cmd_matrix(args) -> int:
    selected = envs.select(args.envs)
    all_jobs, results, wall = runner.run_matrix(selected, not args.no_cache)
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
    known = {e.name for e in envs.load()} - {e.name for e in selected}  # records of other environments stay
    kept = {k: v for k, v in evidence.load().items() if k[1] in known and (envs.ROOT / k[0]).exists()}
    kept.update(results)
    evidence.save(list(kept.values()), [e.name for e in envs.load()])
    print(f"[matrix] {len(all_jobs)} runs in {wall:.1f} s; wrote {evidence.PATH.relative_to(envs.ROOT)}"
          + (f"; {problems} unexpected outcome(s)" if problems else ""))
    return 1 if problems else 0


def cmd_run(args) -> int:
    path = Path(args.snippet).resolve()
    if not path.is_file():
        raise UsageError(f"no such snippet file: {args.snippet}")
    env = envs.select(args.env)[0]
    envs.ensure(env)
    job = runner.jobs([env], [path])[0]
    record = runner.run(job, use_cache=False)
    if record.get("stdout"):
        print(record["stdout"])
    shown = {k: record.get(k) for k in ("env", "tensorflow", "keras", "replicas", "outcome", "exception", "message", "seconds")}
    print(json.dumps(shown, indent=1))
    problems = runner.judge(job, record)
    for problem in problems:
        print(f"UNEXPECTED: {problem}", file=sys.stderr)
    return 1 if problems else 0


def cmd_bench(args) -> int:
    import os
    import subprocess

    from . import sitebench

    # The site first (strict build, entry-page transfer, search index, Lighthouse): figures, no assertions.
    try:
        sitebench.report()
    except RuntimeError as error:
        print(f"tfdist bench: {error}", file=sys.stderr)
        raise UsageError(f"bench: {str(error).splitlines()[0]}")
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
    committed = evidence.load()
    print(f"{'environment':16} {'snippets':>8} {'wall s':>8} {'median s':>9} {'floor s':>8} {'wall/floor':>10}")
    for env in envs.select(args.envs):
        all_jobs, results, wall = runner.run_matrix([env], use_cache=False)
        ran = {k: r for k, r in results.items() if isinstance(r, dict) and r["outcome"] != "not-applicable"}
        seconds = [r["seconds"] for r in ran.values()]
        # floor: each snippet's minimum process time (this run or the committed evidence), spread over the cores
        floor = sum(min(r["seconds"], (committed.get(k) or {}).get("seconds") or r["seconds"])
                    for k, r in ran.items()) / cores
        median = statistics.median(seconds) if seconds else 0.0
        ratio = wall / floor if floor else float("nan")
        print(f"{env.name:16} {len(ran):>8} {wall:>8.1f} {median:>9.2f} {floor:>8.1f} {ratio:>10.2f}", flush=True)
    started = time.monotonic()
    runner.run_matrix(envs.select(args.envs), use_cache=True)
    print(f"no-change re-run of the matrix: {time.monotonic() - started:.1f} s (cache keyed on the snippet, the packages installed in its environment and the runner's code)")
    print(f"({cores} cores; floor = sum over snippets of the minimum process seconds seen (this run or the "
          f"committed evidence) / cores)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tfdist", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func in (("envs", cmd_envs), ("lock", cmd_lock)):
        p = sub.add_parser(name)
        p.add_argument("envs", nargs="?", default="all")
        p.set_defaults(func=func)
        if name == "envs":
            p.add_argument("--rebuild", action="store_true", help="reinstall from the lock file")
    p = sub.add_parser("matrix", help="run every snippet in every environment; write the evidence")
    p.add_argument("--envs", default="all")
    p.add_argument("--no-cache", action="store_true")
    p.set_defaults(func=cmd_matrix)
    p = sub.add_parser("run", help="run one snippet on 4 replicas")
    p.add_argument("snippet")
    p.add_argument("--env", default="default")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("errors", help="write the tfdist package's error index from the registry and the evidence")
    p.set_defaults(func=cmd_errors)
    p = sub.add_parser("bench", help="measure the site, then time the matrix")
    p.add_argument("--envs", default="all")
    p.add_argument("--site-only", action="store_true", help="the site's figures only (no TensorFlow environments)")
    p.set_defaults(func=cmd_bench)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, registry.RegistryError, envs.EnvError, expect.ExpectError, runner.RunnerError,
            errors.DeclarationError) as error:
        print(f"tfdist: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
