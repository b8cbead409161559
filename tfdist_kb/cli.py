"""The `tfdist` command.

  tfdist explain TFD001          what an entry says, in the terminal (link tools print this ID)
  tfdist envs [ENV,...]          create/update the pinned TensorFlow environments
  tfdist matrix [--envs ENV,...] [--no-cache]   run every snippet everywhere, write snippets/evidence.json
  tfdist run SNIPPET [--env ENV] run one snippet on 4 replicas and show what happened
  tfdist bench                   time the matrix: per environment and a no-change re-run
  tfdist lock [ENV,...]          recompile the lock files from tfdist_kb/envs/*.in
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import textwrap
import time
from pathlib import Path

from . import envs, evidence, expect, macros, registry, runner



def site_url() -> str:
    """The published site's address, from mkdocs.yml (one place to change it)."""
    import yaml

    config = yaml.safe_load((envs.ROOT / "mkdocs.yml").read_text())
    return config["site_url"].rstrip("/") + "/"


class UsageError(Exception):
    pass


def _section(body: str, heading: str) -> str:
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", body, re.DOTALL | re.MULTILINE)
    return found.group(1).strip() if found else ""


def _verdict(record: dict, declared) -> str:
    if record["outcome"] == "raised":
        return f"raises {record['exception']}"
    if record["outcome"] == "timed-out":
        return "hangs"
    return "prints a wrong result" if declared.kind == "prints" else "passes"


def cmd_explain(args) -> int:
    entry = registry.lookup(args.id)
    if not entry.page.exists():
        raise UsageError(f"{entry.id} is registered but its page {entry.page.relative_to(envs.ROOT)} is missing")
    meta, body = registry.front_matter(entry.page)
    short = re.split(r"^(?:!!!|\?\?\?)", _section(body, "Short answer"), maxsplit=1, flags=re.MULTILINE)[0]
    try:
        answer = macros.render_prose(short).strip()
    except ValueError as error:
        raise UsageError(f"{entry.id}: the page's short answer disagrees with the evidence: {error}") from None
    records = evidence.load()
    print(f"{entry.id}: {entry.title}\n")
    for paragraph in answer.split("\n\n"):
        print(textwrap.fill(" ".join(paragraph.split()), width=88), end="\n\n")
    print("Recorded outcomes, each on 4 replicas:")
    for path in entry.snippets:
        rel = path.relative_to(envs.ROOT).as_posix()
        declared = runner.expectations(path)
        groups: dict[str, list[str]] = {}
        for env in envs.load():
            record = records.get((rel, env.name))
            if record is None:
                groups.setdefault("no evidence", []).append(env.name)
            elif record["outcome"] != "not-applicable":
                groups.setdefault(_verdict(record, declared[env.name]), []).append(env.name)
        print(f"  {path.name}: " + "; ".join(f"{k} on {', '.join(v)}" for k, v in groups.items()))
    print(f"\nFull answer: {site_url()}{entry.url}")
    return 0


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

    cores = os.cpu_count() or 1
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
    print(f"no-change re-run of the matrix: {time.monotonic() - started:.1f} s (cache keyed on snippet sha256 + environment pins)")
    print(f"({cores} cores; floor = sum over snippets of the minimum process seconds seen (this run or the "
          f"committed evidence) / cores)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tfdist", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("explain", help="print an entry's short answer and its link")
    p.add_argument("id")
    p.set_defaults(func=cmd_explain)
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
    p = sub.add_parser("bench", help="time the matrix")
    p.add_argument("--envs", default="all")
    p.set_defaults(func=cmd_bench)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, registry.RegistryError, envs.EnvError, expect.ExpectError, runner.RunnerError) as error:
        print(f"tfdist: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
