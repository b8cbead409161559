"""mkdocs-macros module: render the recorded evidence into pages.

Pages never type an output, a version or a verdict: they call
  {{ verified_on() }}            the "Verified on" box for the page's entry
  {{ outcome("TFD001/x.py") }}   what that snippet printed and how it ended (default environment)
  {{ outcome("TFD001/x.py", "tf2.4") }}   the same in another environment
  {{ outcomes("TFD001") }}       the snippet x environment table (no argument: every entry)
  {{ entries() }}                the list of entries from the registry
"""
from __future__ import annotations

import html
import os

from . import envs, evidence, expect, registry, runner

LEGEND = ("**pass**: ran to the end and its own assertions held · **an exception name**: raised it · "
          "**wrong result**: ran, and printed the wrong result its page documents · **hangs**: did not "
          "finish and was stopped · **n/a**: does not apply there. Hover a cell for the message or the reason.")


def _mark(kind: str, text: str, tip: str | None = None) -> str:
    title = f' title="{html.escape(tip, quote=True)}"' if tip else ""
    return f'<span class="tfd-{kind}"{title}>{html.escape(text)}</span>'


def _label(record: dict) -> str:
    package = {"keras": "Keras", "tf-keras": "tf-keras", "tf.keras": "tf.keras"}.get(record.get("keras_package"), "Keras")
    keras = f" · {package} {record['keras']}" if record.get("keras") else ""
    return f"TensorFlow {record['tensorflow']}{keras} · Python {record['python']}"


def _record(snippet: str, env_name: str) -> dict:
    path = runner.SNIPPETS / snippet
    if not path.exists():
        raise ValueError(f"outcome(): no snippet {path}")
    records = evidence.load()
    record = records.get((path.relative_to(envs.ROOT).as_posix(), env_name))
    if record is None:
        raise ValueError(f"outcome(): no evidence for {snippet} on {env_name}: run make matrix")
    if record["sha256"] != runner.sha256(path):
        raise ValueError(f"outcome(): evidence for {snippet} on {env_name} is stale: run make matrix")
    return record


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())


def _stale_allowed() -> bool:
    """`make serve` previews pages while snippets change: show missing evidence as a warning box.
    Every other build (make site, the tests) fails on it."""
    return os.environ.get("TFDIST_PREVIEW") == "1"


def outcome(snippet: str, env_name: str | None = None) -> str:
    env_name = env_name or envs.default().name
    try:
        record = _record(snippet, env_name)
    except ValueError as error:
        if not _stale_allowed():
            raise
        return f'!!! warning "Preview only: no current evidence"\n    {error}\n'

    if record["outcome"] == "not-applicable":
        return f'!!! info "Not run on {env_name}"\n    {record["reason"]}\n'
    if record["outcome"] == "timed-out":
        printed = ("\n\n" + _indent("```text\n" + record["stdout"] + "\n```")) if record.get("stdout") else ""
        return (f'!!! failure "Recorded run: did not finish within {record["seconds"]:.0f} s, stopped — '
                f'{_label(record)}"{printed}\n')
    wrong = runner.expectations(runner.SNIPPETS / snippet)[env_name].kind == "prints"
    kind = ("warning" if wrong else "success") if record["outcome"] == "passed" else "failure"
    how = ("ran, with the wrong result shown" if wrong else "passed") if record["outcome"] == "passed" \
        else f"raised {record['exception']}"
    title = f"Recorded run: {how} — {_label(record)}, {record['replicas']} replicas"
    body = []
    if record.get("stdout"):
        body.append("```text\n" + record["stdout"] + "\n```")
    if record["outcome"] == "raised":
        body.append("```text\n" + f"{record['exception']}: {record['message']}" + "\n```")
    if not body:
        body.append("(printed nothing)")
    return f'!!! {kind} "{title}"\n\n' + _indent("\n\n".join(body)) + "\n"


def _cell(record: dict | None, declared: expect.Expectation) -> str:
    if record is None:
        return _mark("missing", "no evidence")
    outcome = record["outcome"]
    if outcome == "passed" and declared.kind == "prints":
        return _mark("wrong", "wrong result", "runs, but prints the wrong result its page documents")
    if outcome == "raised":
        return _mark("raised", record["exception"], f"{record['exception']}: {record['message']}")
    if outcome == "not-applicable":
        return _mark("na", "n/a", record["reason"])
    if outcome == "timed-out":
        return _mark("hangs", "hangs", f"stopped after {record['seconds']:.0f} s without finishing")
    return _mark("pass", "pass")


def outcomes(entry: str | None = None) -> str:
    records = evidence.load()
    files = [p for p in runner.snippet_files() if entry is None or p.parent.name == entry]

    def applies(env) -> bool:
        return any((records.get((p.relative_to(envs.ROOT).as_posix(), env.name)) or {}).get("outcome")
                   != "not-applicable" for p in files)

    all_envs = [e for e in envs.load() if applies(e)]  # a column of nothing but n/a says nothing
    head = "| snippet | " + " | ".join(e.name for e in all_envs) + " |"
    rule = "|---|" + "---|" * len(all_envs)
    rows = []
    for path in files:
        rel = path.relative_to(envs.ROOT).as_posix()
        declared = runner.expectations(path)
        cells = [_cell(records.get((rel, e.name)), declared[e.name]) for e in all_envs]
        rows.append(f"| `{path.parent.name}/{path.name}` | " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *rows]) + f"\n\n{LEGEND}\n"


def verified_on(entry: str | None = None, page=None) -> str:
    entry = entry or (page.meta.get("id") if page else None)
    paths = [p for p in runner.snippet_files() if p.parent.name == entry]
    if not paths:
        return '!!! warning "Not verified"\n    This entry has no executed snippets yet.\n'
    ran = []
    for path in paths:
        for env in envs.load():
            try:
                record = _record(f"{path.parent.name}/{path.name}", env.name)
            except ValueError as error:
                return f'!!! warning "Not verified"\n    {error}\n'
            if record["outcome"] not in ("not-applicable", "timed-out"):
                ran.append(record)
    dates = sorted({r["date"] for r in ran})
    devices = sorted({r.get("devices") for r in ran if r.get("devices")})
    lines = []
    for env in envs.load():
        mine = [r for r in ran if r["env"] == env.name]
        if mine:
            lines.append(f"- `{env.name}`: {_label(mine[0])} ({len(mine)} of {len(paths)} snippets apply)")
    return ("!!! success \"Verified on\"\n"
            f"    {len(paths)} snippet{'s' if len(paths) != 1 else ''}, {len(ran)} runs, each on {runner.REPLICAS} "
            f"replicas ({'; '.join(devices)}), last run {dates[-1]}:\n\n" + _indent("\n".join(lines)) + "\n")


def entries() -> str:
    lines = []
    for entry in registry.load().values():
        if entry.status == "published":
            lines.append(f"- [**{entry.id}** — {entry.title}](e/{entry.id}.md)")
    return "\n".join(lines) + "\n"


def define_env(env):  # mkdocs-macros entry point
    env.macro(outcome)
    env.macro(outcomes)
    env.macro(entries)
    env.variables["envs"] = envs.load()
    env.variables["tags"] = registry.TAGS

    @env.macro
    def verified_on_page(entry: str | None = None):
        return verified_on(entry, env.page)

    env.variables["verified_on"] = verified_on_page
