"""`make drift`: would the newest TensorFlow / Keras / tf-keras change what any snippet does?

The evidence is recorded in pinned environments, so a new release cannot silently change it; this
check is how the knowledge base learns that a release changed an answer. Each channel has two
environments beside the two newest pinned ones (MIRRORS): the same Python and settings, but a lock
compiled now from an unpinned requirement (tfdist_kb/proof/envs/drift/NAME.in) into .cache/drift/NAME.txt
and built by `envs.ensure` at .envs/drift-NAME. Every snippet runs there with the expectation of the
environment it mirrors (not applicable there: skipped) and is compared with that environment's
committed evidence. Versions are expected to differ: shown in the header, never a difference.
The runner's cache keys on what is installed, so a re-run with unchanged releases is instant.
"""
from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..proof import envs, evidence, runner

SOURCES = envs.PINS / "drift"
CACHE = envs.ROOT / ".cache" / "drift"
CHANNELS = {"release": "latest", "nightly": "nightly"}  # channel -> prefix of its environments' names
MIRRORS = {"keras3": "tf2.21-keras3", "tfkeras": "tf2.21-tfkeras"}  # kind -> pinned environment it mirrors
VERSIONS = ("tensorflow", "keras", "keras_package", "python")  # compared fields expected to change
CELL = 60  # widest cell of the printed table (report.json keeps every value whole)


@dataclass(frozen=True)
class DriftEnv(envs.Env):
    """An environment whose lock is compiled at each run, kept apart from the pinned ones."""
    mirrors: str = ""

    @property
    def source(self) -> Path:
        return SOURCES / f"{self.name}.in"

    @property
    def lock(self) -> Path:
        return CACHE / f"{self.name}.txt"

    @property
    def path(self) -> Path:
        return envs.HOME / f"drift-{self.name}"


@dataclass(frozen=True)
class Row:
    """One difference: a compared field, a broken expectation, or a run that did not complete."""
    snippet: str
    env: str
    mirrors: str
    field: str
    committed: str
    now: str
    installed: str  # "tensorflow X, keras Y" in the drift environment


def environments(channel: str) -> list[DriftEnv]:
    if channel not in CHANNELS:
        raise envs.EnvError(f"unknown drift channel {channel!r}; known: {', '.join(CHANNELS)}")
    out = []
    for kind, name in MIRRORS.items():
        mirror = envs.select(name)[0]
        same = {f.name: getattr(mirror, f.name) for f in fields(mirror)}  # its Python, settings, ...
        same.update(name=f"{CHANNELS[channel]}-{kind}", about=f"newest {channel}, beside {name}", mirrors=name,
                    environ=dict(mirror.environ))
        out.append(DriftEnv(**same))
    return out


def compile_lock(env: DriftEnv) -> Path:
    """Resolve the unpinned requirement now (--upgrade: an earlier lock is no preference)."""
    if not env.source.exists():
        raise envs.EnvError(f"{env.name}: requirement file {env.source} is missing")
    CACHE.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [envs.uv(), "pip", "compile", "--quiet", "--no-header", "--upgrade", "--python",
         str(envs.find_interpreter(env.python)), "--python-platform", "x86_64-manylinux_2_28",
         str(env.source), "-o", str(env.lock)], capture_output=True, text=True)
    if result.returncode != 0:
        said = " ".join(line.strip(" ×╰─▶") for line in result.stderr.splitlines() if line.strip())
        raise envs.EnvError(f"{env.name}: {env.source.name} does not resolve: {said[:400] or '(no output)'}")
    return env.lock


def newest(env: DriftEnv) -> dict:
    """What the drift environment has: its TensorFlow and Keras packages, from its checked lock."""
    pins = env.pins()
    names = ("tf-keras", "tf-keras-nightly") if env.environ.get("TF_USE_LEGACY_KERAS") else ("keras", "keras-nightly")
    package = next((n for n in names if n in pins), names[0])
    tensorflow = next((n for n in ("tensorflow", "tf-nightly") if n in pins), "tensorflow")
    return {"env": env.name, "mirrors": env.mirrors, "tensorflow_package": tensorflow,
            "tensorflow": pins.get(tensorflow), "keras_package": package, "keras": pins.get(package),
            "python": env.python_version()}


def _installed(info: dict) -> str:
    return f"{info['tensorflow_package']} {info['tensorflow']}, {info['keras_package']} {info['keras']}"


def _show(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def compare(job: runner.Job, result: dict | runner.RunnerError, committed: dict | None, installed: str) -> list[Row]:
    """How a drift run departs from the mirrored environment's committed run and declared outcome.

    A field the committed record lacks (recorded before the runner wrote it) is not compared; nor is
    a run of a snippet changed since its evidence was recorded (`make matrix` has not run since)."""
    row = functools.partial(Row, job.rel, job.env.name, job.env.mirrors, installed=installed)
    before = (committed or {}).get("outcome", "(no committed evidence)")
    if isinstance(result, runner.RunnerError):
        said = str(result).splitlines()[0].removeprefix(f"{job.rel} on {job.env.name}: ")
        return [row("run", _show(before), f"did not complete: {said}")]
    rows = []
    if committed is None or committed.get("sha256") != result.get("sha256"):  # nothing to compare with
        was = before if committed is None else "(committed for another version of the snippet)"
        rows.append(row("evidence", was, _show(result.get("outcome"))))
    else:
        for name in evidence.COMPARED:  # each field alone, by the evidence's own rule (loose headline)
            if name not in VERSIONS and name in committed and \
                    evidence.differences({name: committed[name]}, {name: result.get(name)}):
                rows.append(row(name, _show(committed[name]), _show(result.get(name))))
    rows += [row("expectation", job.expectation.describe(), problem) for problem in runner.judge(job, result)]
    return rows


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def table(rows: list[Row]) -> str:
    """The differences as an aligned plain-text table, long values cut to CELL characters."""
    heads = ("snippet", "mirrored env", "field", "committed", "now", "installed")
    cells = [heads] + [tuple(_cut(v, CELL) for v in (r.snippet, r.mirrors, r.field, r.committed, r.now))
                       + (r.installed,) for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(heads))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _markdown_cell(text: str) -> str:
    return _cut(text, 400).replace("|", "\\|")


def markdown(channel: str, header: str, verdict: str, rows: list[Row]) -> str:
    out = [f"## Drift ({channel})", "", header, "", verdict]
    if rows:
        out += ["", "| snippet | mirrored env | field | committed | now | installed |", "|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(_markdown_cell(v) for v in (f"`{r.snippet}`", r.mirrors, r.field, r.committed,
                                                               r.now, r.installed)) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _header(channel: str, infos: list[dict], committed: dict) -> str:
    parts = []
    for info in infos:
        was = next((r for (_, env), r in sorted(committed.items()) if env == info["mirrors"]), {})
        parts.append(f"{info['env']}: {_installed(info)}, Python {info['python']} (committed in {info['mirrors']}: "
                     f"tensorflow {was.get('tensorflow')}, {was.get('keras_package')} {was.get('keras')})")
    return f"newest ({channel}): " + "; ".join(parts)


def _write(out: Path, channel: str, text: str, report: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text)
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")


def summarise(channel: str, infos: list[dict], all_jobs: list[runner.Job], results: dict, committed: dict,
              out: Path | None = None) -> int:
    """Print the header and the differences, write report.md and report.json; 1 if anything differs."""
    installed = {info["env"]: _installed(info) for info in infos}
    rows = [row for job in all_jobs
            for row in compare(job, results[(job.rel, job.env.name)], committed.get((job.rel, job.env.mirrors)),
                               installed[job.env.name])]
    snippets = len({job.rel for job in all_jobs})
    header = _header(channel, infos, committed)
    if rows:
        verdict = (f"drift: {len(rows)} difference(s) in {len({(r.snippet, r.env) for r in rows})} of "
                   f"{len(all_jobs)} runs ({snippets} snippets)")
    else:
        verdict = f"no drift: {snippets} snippets, same outcomes ({len(all_jobs)} runs)"
    print(header)
    if rows:
        print(table(rows))
    print(verdict)
    _write(out or CACHE, channel, markdown(channel, header, verdict, rows),
           {"channel": channel, "newest": infos, "snippets": snippets, "runs": len(all_jobs), "verdict": verdict,
            "differences": [asdict(r) for r in rows], "finding": None})
    return 1 if rows else 0


def main(channel: str = "release") -> int:
    """Resolve and build the channel's environments, run every applicable snippet, compare.
    An environment that does not resolve or install is a finding of its own: reported, EnvError."""
    chosen = environments(channel)
    try:
        for env in chosen:
            print(f"[drift] {env.name}: resolving {env.source.name} now", flush=True)
            compile_lock(env)
            envs.ensure(env)
    except envs.EnvError as error:
        finding = f"drift {channel}: {str(error).splitlines()[0]}"
        _write(CACHE, channel, f"## Drift ({channel})\n\n{finding}\n",
               {"channel": channel, "newest": [], "differences": [], "finding": finding})
        raise envs.EnvError(finding) from None
    committed = evidence.load()
    all_jobs = [job for path in runner.snippet_files()
                for job in (runner.Job(path, env, runner.expectations(path)[env.mirrors]) for env in chosen)
                if job.expectation.kind != "not-applicable"]
    previous = {(rel, env.name): record for env in chosen for (rel, name), record in committed.items()
                if name == env.mirrors}  # longest first, as the mirrored runs took
    results = runner.run_all(all_jobs, previous=previous)
    return summarise(channel, [newest(env) for env in chosen], all_jobs, results, committed)
