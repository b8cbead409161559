"""mkdocs-macros module: render the recorded evidence into pages.

Pages never type an output, a version or a verdict: they call
  {{ verified_on() }}            the "Verified on" box for the page's entry
  {{ outcome("TFD001/x.py") }}   what that snippet printed and how it ended (default environment)
  {{ outcome("TFD001/x.py", "tf2.4") }}   the same in another environment
  {{ outcomes("TFD001") }}       per snippet, one row per outcome with its environments (no argument: every entry)
  {{ claim("TFD001/x.py", "raises", "tf1.15", "tf2.0") }}   "TF 1.15.0 and TF 2.0.4", checked
                                 against the evidence (no environment: every one where it holds)
  {{ version("tf2.4") }}         "TF 2.4.1", from that environment's runs
  {{ bisection("TFD001/x.py") }} the two adjacent releases between which the outcome changes
  {{ users_see("TFD001/x.py") }} the message the snippet raised, per wording, with the releases
  {{ entries() }}                the list of entries from the registry
  {{ tfdist_package() }}         where to download the tfdist package from this site (and its repository)
A claim, version or bisection the evidence does not support fails the build.
"""
from __future__ import annotations

import html
import os
import re

from ..proof import envs, evidence, expect, messages, runner
from . import coverage, errors, i18n, pages, reasons, registry, wheel
from .i18n import t

# What claim() accepts as the outcome word, and what bisection() says for each recorded outcome.
WORDS = re.compile(r"^(passes|wrong-result|raises|raises [\w.]+|hangs|n/a)$")
RELEASES = envs.PINS / "tensorflow-releases.txt"


class StaleEvidence(ValueError):
    """No current record for a snippet in an environment: in preview a warning, otherwise a build error."""


def _mark(kind: str, text: str) -> str:
    return f'<span class="tfd-{kind}">{html.escape(text)}</span>'


# Every macro output that names a release, an environment or a recorded message carries
# data-tfd-from (pages.MARK_ATTRIBUTE): "evidence" (the runs), "envs" (envs.toml and the lock files),
# "snippet" (a piece of a snippet's code, checked to be in it).
# The rendered audit (tfdist_kb/site/pages.py, tests/test_rendered_audit.py) accepts a version-like token
# outside code only inside such an element, or inside a <q cite="..."> quoting a cited report.
def _from(text: str, source: str = "evidence", tag: str = "span") -> str:
    return f'<{tag} class="tfd-v" {pages.MARK_ATTRIBUTE}="{source}">{html.escape(text)}</{tag}>'


def _env(name: str, tag: str = "code") -> str:
    """An environment's name, as envs.toml spells it (a name envs.toml does not know is an error)."""
    _env_names((name,), "env")
    return _from(name, "envs", tag)


RELEASE_PACKAGES = {"tensorflow", "tensorflow-cpu", "keras", "tf-keras"}  # what a reason may name a release of


def _pinned_words(text: str, who: str) -> str:
    """`text` typed next to an environment (its `about`, a not-applicable reason), marked: every
    version-like token in it must name a release the lock files pin (a prefix of one: "TF 1.15"),
    or a Python of envs.toml; anything else is a ValueError naming it."""
    pinned = ({v for e in envs.load() for k, v in e.pins().items() if k in RELEASE_PACKAGES}
              | {e.python for e in envs.load()})
    for token in pages.version_tokens(text):
        if not any(v == token or v.startswith(token + ".") for v in pinned):
            raise ValueError(f"{who}: {token!r} in {text!r} is no release an environment pins "
                             f"(tfdist_kb/proof/envs/*.txt); name the environment instead")
    return _from(text, "envs")


def printed(snippet: str, text: str, *env_names: str) -> str:
    """`text`, a piece of what `snippet` printed (in the default environment, or in each named one),
    as inline code marked from the evidence: a number a page quotes from a run (`w after one step:
    0.2`) is the recorded one. ValueError where a run did not print it."""
    names = list(env_names) or [envs.default().name]
    _env_names(tuple(names), "printed")
    try:
        records = _records(snippet, names, "printed")
    except StaleEvidence as error:
        if _stale_allowed():
            return _preview(error)
        raise
    missing = [r["env"] for r in records if text not in (r.get("stdout") or "")]
    if missing:
        raise ValueError(f"printed(): {snippet} did not print {text!r} on {', '.join(missing)}")
    return _from(text, "evidence", "code")


def in_snippet(snippet: str, text: str) -> str:
    """`text`, a piece of the code of `snippet` (the file the page includes and every run executed),
    as inline code marked as from the snippet. ValueError if the file does not hold it."""
    path = runner.SNIPPETS / snippet
    if not path.exists() or text not in path.read_text(encoding="utf-8"):
        raise ValueError(f"in_snippet(): snippets/{snippet} does not contain {text!r}")
    return _from(text, "snippet", "code")


def environment(name: str, field: str = "name") -> str:
    """An environment of envs.toml as pages show it: its `name` (<code>), its `lock` file name, its
    `python`, or what it is `about` (every version in it checked against the lock files)."""
    _env_names((name,), "env")
    e = next(e for e in envs.load() if e.name == name)
    if field == "name":
        return _env(name)
    if field == "lock":
        return _from(e.lock.name, "envs", "code")
    if field == "python":
        return _from(e.python, "envs")
    if field == "about":
        return _pinned_words(e.about, f"envs.toml about of {name}")
    raise ValueError(f"env(): field {field!r} is not one of name, lock, python, about")


def _keras(record: dict) -> str:
    package = {"keras": "Keras", "tf-keras": "tf-keras", "tf.keras": "tf.keras"}.get(record.get("keras_package"), "Keras")
    return f"{package} {record['keras']}" if record.get("keras") else ""


def _label(record: dict) -> str:
    keras = f" · {_keras(record)}" if record.get("keras") else ""
    return f"TensorFlow {record['tensorflow']}{keras} · Python {record['python']}"


def _headline(record: dict) -> str:
    return record.get("headline") or record.get("message") or ""


def _raised(record: dict, printed: bool = False) -> str:
    """A raised run's exception on one line (`Type: headline`; `Type with no message, raised at …`
    for one with no message), or `printed`: the end of the traceback Python printed for it."""
    if printed and not (record.get("message") or "").strip() and record.get("headline"):
        return messages.printed(record["exception"], "", record["headline"])
    return messages.one_line(record["exception"], _headline(record).strip())


def _record(snippet: str, env_name: str, who: str = "outcome") -> dict:
    path = runner.SNIPPETS / snippet
    if not path.exists():
        raise StaleEvidence(f"{who}(): no snippet {path}")
    records = evidence.load()
    record = records.get((path.relative_to(envs.ROOT).as_posix(), env_name))
    if record is None:
        raise StaleEvidence(f"{who}(): no evidence for {snippet} on {env_name}: run make matrix")
    if record["sha256"] != runner.sha256(path):
        raise StaleEvidence(f"{who}(): evidence for {snippet} on {env_name} is stale: run make matrix")
    return record


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())


def _fence(text: str) -> str:
    """A ```text block that no run of backticks in `text` can close, marked as a recorded output
    (pages.BLOCK_KINDS)."""
    ticks = "`" * max(3, 1 + max(map(len, re.findall(r"`+", text)), default=0))
    return f'{ticks}{{.text {pages.BLOCK_ATTRIBUTE}="record"}}\n{text}\n{ticks}'


def _stale_allowed() -> bool:
    """`make serve` previews pages while snippets change: show missing evidence as a warning box.
    Every other build (make site, the tests) fails on it."""
    return os.environ.get("TFDIST_PREVIEW") == "1"


def outcome(snippet: str, env_name: str | None = None) -> str:
    env_name = env_name or envs.default().name
    try:
        record = _record(snippet, env_name)
    except StaleEvidence as error:
        if not _stale_allowed():
            raise
        return f'!!! warning "{t("preview_title")}"\n    {error}\n'

    if record["outcome"] == "not-applicable":
        reason = _pinned_words(reasons.localized(record["reason"], reasons.entry_of(snippet)),
                               f"the not-applicable reason of {snippet} on {env_name}")
        return f'!!! info "{t("not_run_on", env=_env(env_name))}"\n    {reason}\n'
    if record["outcome"] == "timed-out":
        printed = ("\n\n" + _indent(_fence(record["stdout"]))) if record.get("stdout") else ""
        return f'!!! failure "{t("timed_out", seconds=record["seconds"], label=_from(_label(record)))}"{printed}\n'
    wrong = runner.expectations(runner.SNIPPETS / snippet)[env_name].kind == "prints"
    kind = ("warning" if wrong else "success") if record["outcome"] == "passed" else "failure"
    how = (t("ran_wrong") if wrong else t("passed")) if record["outcome"] == "passed" \
        else t("raised", exception=record["exception"])
    on = t("on_devices", devices=", ".join(record["ran_on"])) if record.get("ran_on") else ""
    title = t("recorded_run", how=how, label=_from(_label(record)), replicas=record["replicas"], on=on)
    body = []
    if record.get("stdout"):
        body.append(_fence(record["stdout"]))
    if record["outcome"] == "raised":
        headline, whole = _headline(record), (record.get("message") or "").strip()
        body.append(_fence(_raised(record, printed=True)))
        if whole and whole != headline.strip():
            body.append(f'??? note "{t("whole_message")}"\n\n' + _indent(_fence(whole)))
    if not body:
        body.append(t("printed_nothing"))
    if record.get("tasks"):
        body.append(cluster_tasks(record))
    return f'!!! {kind} "{title}"\n\n' + _indent("\n\n".join(body)) + "\n"


def cluster_tasks(record: dict) -> str:
    """What each task of a local cluster did, in one sentence (tfdist_kb.proof.cluster)."""
    said = []
    for task in record["tasks"]:
        key = {"passed": "task_passed", "raised": "task_raised", "stopped": "task_stopped",
               "served": "task_served", "timed-out": "task_timed_out"}.get(task["outcome"], "task_no_result")
        said.append(t(key, task=f"`{task['task']}`", exception=f"`{task.get('exception')}`"))
    return t("cluster_tasks", n=len(record["tasks"]), tasks=t("groups_sep").join(said))


def _cell(record: dict | None, declared: expect.Expectation) -> tuple[str, str, str | None]:
    """A recorded run as a table shows it: (kind, label, the message behind the label or None)."""
    if record is None:
        return "missing", t("no evidence"), None
    outcome = record["outcome"]
    if outcome == "passed" and declared.kind == "prints":
        return "wrong", t("wrong result"), t("wrong_tip")
    if outcome == "raised":
        return "raised", record["exception"], _raised(record)
    if outcome == "not-applicable":
        return "na", t("n/a"), record["reason"]
    if outcome == "timed-out":
        return "hangs", t("hangs"), t("hangs_tip", seconds=record["seconds"])
    return "pass", t("pass"), None


def _verdict(kind: str, label: str, said: dict[str, list[str]]) -> str:
    """The outcome cell: the label, and the message(s) behind it in a native <details>, which a
    tap, a click or the keyboard opens (and which the PDF prints opened). `said` maps each
    message to the environments that gave it; with more than one, each is prefixed by them."""
    mark = _mark(kind, label)
    if not said:
        return mark
    if len(said) == 1:
        body = f'<p>{_said(kind, next(iter(said)))}</p>'
    else:
        items = (t("reasons_by_env", envs=", ".join(_env(e) for e in names),
                   reason=_said(kind, text)) for text, names in said.items())
        body = "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"
    return f'<details class="tfd-why"><summary>{mark}</summary>{body}</details>'


def _said(kind: str, text: str) -> str:
    """What an outcome cell says behind its label: a recorded message (code), or the declared
    reason it did not run (its versions checked against the lock files)."""
    if kind == "na":
        return _pinned_words(text, "a not-applicable reason")
    return f'<code class="tfd-message" {pages.MARK_ATTRIBUTE}="evidence">{html.escape(text)}</code>'


def _rows(path, env_list, records: dict) -> list[tuple[str, str, dict[str, list[str]], list[str]]]:
    """One row per distinct outcome of `path`: (kind, label, {message: [env]}, [env]), in the
    order of the environments' first appearance. Raised exceptions are told apart by their
    headline (numeric suffixes of graph names aside); n/a, hangs and the like are one row each."""
    rel = path.relative_to(envs.ROOT).as_posix()
    declared = runner.expectations(path)
    rows: dict[tuple, tuple] = {}
    for env in env_list:
        kind, label, message = _cell(records.get((rel, env.name)), declared[env.name])
        if kind == "na":  # a reason, in the page's language; one for every bisection environment
            bisection = reasons.BISECTION.match((message or "").strip())
            message = t("bisection_na") if bisection else reasons.localized(message, reasons.entry_of(rel))
        key = (kind, label, message if kind == "raised" and message else None)
        _, _, said, names = rows.setdefault(key, (kind, label, {}, []))
        names.append(env.name)
        if message:
            said.setdefault(message if kind != "raised" or not said else next(iter(said)), []).append(env.name)
    return list(rows.values())


def outcomes(entry: str | None = None) -> str:
    """Every snippet of `entry` (no argument: of every entry) in every environment, as a table
    that fits a phone: for each snippet, one row per outcome listing the environments that had it."""
    records = evidence.load()
    files = [p for p in runner.snippet_files() if entry is None or p.parent.name == entry]
    env_list = envs.load()
    out = ["", '<div class="tfd-outcomes">', "<table>",
           f'<thead><tr><th scope="col">{t("outcome_col")}</th><th scope="col">{t("environments_col")}</th></tr></thead>']
    for path in files:
        out.append(f'<tbody><tr><th colspan="2" scope="rowgroup"><code>{html.escape(path.parent.name)}/'
                   f'{html.escape(path.name)}</code></th></tr>')
        for kind, label, said, names in _rows(path, env_list, records):
            chips = " ".join(_env(n) for n in names)
            out.append(f'<tr class="tfd-row-{kind}"><td>{_verdict(kind, label, said)}</td><td>{chips}</td></tr>')
        out.append("</tbody>")
    out += ["</table>", "</div>"]
    return "\n".join(out) + f"\n\n{t('legend')} {t('table_hint')}\n"


# ---- version statements: claim(), version(), bisection() --------------------------------------

def _env_names(names: tuple, who: str) -> list[str]:
    """The named environments (all of them, in envs.toml order, when none is named)."""
    known = [e.name for e in envs.load()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{who}(): unknown environment {', '.join(map(repr, unknown))}; known: {', '.join(known)}")
    return list(names) or known


def _ran(env_name: str) -> list[dict]:
    return [r for (_, env), r in evidence.load().items() if env == env_name and r["outcome"] != "not-applicable"]


def _release(record: dict) -> str:
    """'TF 2.4.1', with the Keras when another environment runs the same TensorFlow release."""
    twins = {r["env"] for r in evidence.load().values() if r.get("tensorflow") == record["tensorflow"]}
    keras = _keras(record)
    return t("with_keras", tf=record["tensorflow"], keras=keras) if len(twins) > 1 and keras else f"TF {record['tensorflow']}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else t("list_sep").join(items[:-1]) + t("and") + items[-1]


def _word(record: dict, snippet: str) -> str:
    """The recorded outcome in claim()'s words."""
    if record["outcome"] == "raised":
        return f"raises {record['exception']}"
    if record["outcome"] == "passed":
        wrong = runner.expectations(runner.SNIPPETS / snippet)[record["env"]].kind == "prints"
        return "wrong-result" if wrong else "passes"
    return {"timed-out": "hangs", "not-applicable": "n/a"}[record["outcome"]]


def _preview(error: Exception) -> str:
    return _mark("missing", t("preview", error=error))


def _records(snippet: str, names: list[str], who: str) -> list[dict]:
    return [_record(snippet, name, who) for name in names]


def claim(snippet: str, said: str, *env_names: str) -> str:
    """The environments, as prose, in which `snippet` did what `said` says; ValueError if it did not."""
    if not isinstance(said, str) or not WORDS.match(said):
        raise ValueError(f"claim(): outcome {said!r} is not one of passes, wrong-result, raises, "
                         f"raises <ExceptionName>, hangs, n/a")
    names = _env_names(env_names, "claim")
    try:
        records = _records(snippet, names, "claim")
    except StaleEvidence as error:
        if _stale_allowed():
            return _preview(error)
        raise
    words = {r["env"]: _word(r, snippet) for r in records}
    holds = [r for r in records if words[r["env"]] == said or (said == "raises" and words[r["env"]].startswith("raises "))]
    recorded = "; ".join(f"{env}: {word}" for env, word in words.items())
    if env_names and len(holds) != len(records):
        wrong = [n for n in names if n not in {r["env"] for r in holds}]
        raise ValueError(f"claim(): {snippet} does not {said!r} on {', '.join(wrong)} (recorded: {recorded})")
    if not holds:
        raise ValueError(f"claim(): {snippet} {said!r} in no environment (recorded: {recorded})")
    return _from(_releases_prose(holds))


def users_see(snippet: str, *env_names: str, lines: str | None = None) -> str:
    """What a user sees, as the failing snippet really did it, for the "What users see" box
    (`{{ users_see("TFD001/x.py") | indent(4) }}`): the exception it raised, `Exception: headline`
    in a text fence per wording, each under the releases that raised it in those words; or, for a
    silent failure (a run that passed printing the wrong result), its output, only the lines
    matching the regex `lines` if given. All environments where it did so, unless some are named.
    ValueError if it did neither anywhere."""
    names = _env_names(env_names, "users_see")
    try:
        records = _records(snippet, names, "users_see")
    except StaleEvidence as error:
        if _stale_allowed():
            return _preview(error)
        raise
    shown: dict[str, list[dict]] = {}  # what the box shows -> the runs that showed it
    for record in sorted(records, key=lambda r: _key(r["tensorflow"]), reverse=True):  # newest first
        if record["outcome"] == "raised":
            said = same = _raised(record, printed=True)
        elif _word(record, snippet) == "wrong-result" and record.get("stdout"):
            kept = [line for line in record["stdout"].splitlines() if not lines or re.search(lines, line)]
            said = same = "\n".join(kept)
        else:
            continue
        if said.strip():
            key = next((k for k in shown if k[1] == same), (said, same))
            shown.setdefault(key, []).append(record)
    if not shown:
        raise ValueError(f"users_see(): {snippet} neither raised nor printed a wrong result"
                         f"{' matching /' + lines + '/' if lines else ''} on {', '.join(names)}")
    blocks = []
    for (said, _), runs in shown.items():
        kind = "users_see_on" if runs[0]["outcome"] == "raised" else "users_see_printed"
        blocks.append(f"{t(kind, releases=_from(_releases_prose(runs)))}\n\n{_fence(said)}")
    return "\n\n".join(blocks)


def reductions(snippet: str, *env_names: str) -> str:
    """How the strategy of `snippet` combined values across its devices in each run, as the runner
    recorded it (`reduction`, tfdist_kb.proof.witness), in prose: '`ReductionToOneDevice` on TF 2.4.1 and
    2.5.3'. All environments where it ran, unless some are named; ValueError where none was recorded."""
    names = _env_names(env_names, "reductions")
    try:
        records = _records(snippet, names, "reductions")
    except StaleEvidence as error:
        if _stale_allowed():
            return _preview(error)
        raise
    ran = [r for r in records if r["outcome"] != "not-applicable"]
    missing = [r["env"] for r in ran if not r.get("reduction")]
    if missing or not ran:
        raise ValueError(f"reductions(): {snippet} has no recorded reduction on "
                         f"{', '.join(missing or names)}")
    groups: dict[str, list[dict]] = {}
    for record in ran:
        groups.setdefault(record["reduction"], []).append(record)
    return t("groups_sep").join(t("reduced_on", how=f"`{how}`", releases=_from(_releases_prose(runs)))
                                for how, runs in groups.items())


def _releases_prose(records: list[dict]) -> str:
    """'TF 1.15.0, 2.4.1 and 2.15.1' in version order; each with its Keras where it needs one."""
    labels = list(dict.fromkeys(_release(r) for r in sorted(records, key=lambda r: _key(r["tensorflow"]))))
    if all(label.count(" ") == 1 for label in labels):  # every one plain "TF x.y.z"
        return "TF " + _and([label[len("TF "):] for label in labels])
    return _and(labels)


def version(env_name: str) -> str:
    """'TF 2.4.1' (with the Keras where two environments share a release) from `env_name`'s runs."""
    _env_names((env_name,), "version")
    ran = _ran(env_name)
    problem = None
    if not ran:
        problem = f"version(): snippets/evidence.json has no executed run on {env_name}: run make matrix"
    elif len({r["tensorflow"] for r in ran}) > 1 or len({_keras(r) for r in ran if r.get("keras")}) > 1:
        problem = f"version(): the runs on {env_name} disagree on the TensorFlow or Keras version: run make matrix"
    else:
        pins = next(e for e in envs.load() if e.name == env_name).pins()
        pinned = pins.get("tensorflow") or pins.get("tensorflow-cpu")
        if pinned and pinned != ran[0]["tensorflow"]:
            problem = (f"version(): evidence on {env_name} was recorded with TensorFlow {ran[0]['tensorflow']}, "
                       f"but its lock file pins {pinned}: run make matrix")
    if problem:
        if _stale_allowed():
            return _preview(problem)
        raise StaleEvidence(problem)
    return _from(_release(max(ran, key=lambda r: bool(r.get("keras")))))


def _releases() -> list[str]:
    """Final TensorFlow releases on PyPI, in version order (see the file's header)."""
    lines = (line.strip() for line in RELEASES.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _key(release: str) -> tuple:
    return tuple(int(part) for part in release.split("."))


def bisection(snippet: str, *env_names: str) -> str:
    """Where the outcome of `snippet` changes between two adjacent TensorFlow releases, over the
    environments in which it ran (or the named ones); ValueError unless it changes exactly once
    and no release lies between the two."""
    names = _env_names(env_names, "bisection")
    try:
        records = [r for r in _records(snippet, names, "bisection") if r["outcome"] != "not-applicable"]
    except StaleEvidence as error:
        if _stale_allowed():
            return _preview(error)
        raise
    steps = []  # (release, word), in version order
    for release in sorted({r["tensorflow"] for r in records}, key=_key):
        same = {r["env"]: _word(r, snippet) for r in records if r["tensorflow"] == release}
        if len(set(same.values())) > 1:
            raise ValueError(f"bisection(): {snippet} on TF {release} differs between environments "
                             f"({', '.join(f'{e}: {w}' for e, w in same.items())})")
        steps.append((release, next(iter(same.values()))))
    changes = [i for i in range(1, len(steps)) if steps[i][1] != steps[i - 1][1]]
    recorded = ", ".join(f"TF {release} {word}" for release, word in steps)
    if len(changes) != 1:
        raise ValueError(f"bisection(): the outcome of {snippet} changes {len(changes)} times, not once "
                         f"(recorded: {recorded}); name the environments to bisect over")
    (before, was), (after, now) = steps[changes[0] - 1], steps[changes[0]]
    releases = _releases()
    for release in (before, after):
        if release not in releases:
            raise ValueError(f"bisection(): TF {release} is not in {RELEASES.name}; regenerate it (see its header)")
    between = releases[releases.index(before) + 1:releases.index(after)]
    if between:
        raise ValueError(f"bisection(): TF {before} ({was}) and TF {after} ({now}) are not adjacent releases: "
                         f"{', '.join(between)} lie between them; add a bisection environment (envs.toml)")
    def verb(word: str, other: str) -> str:  # "raises it", unless both sides raise (then name each)
        if not word.startswith("raises"):
            return t(f"verb_{word}")
        return t("verb_raises", exception=word[len("raises "):]) if other.startswith("raises ") else t("verb_raises_it")
    return t("bisection", before=_from(before), was=verb(was, now), after=_from(after), now=verb(now, was))


def verified_on(entry: str | None = None, page=None) -> str:
    entry = entry or (page.meta.get("id") if page else None)
    paths = [p for p in runner.snippet_files() if p.parent.name == entry]
    if not paths:
        return f'!!! warning "{t("not_verified")}"\n    {t("no_snippets")}\n'
    ran = []
    for path in paths:
        for env in envs.load():
            try:
                record = _record(f"{path.parent.name}/{path.name}", env.name)
            except ValueError as error:
                return f'!!! warning "{t("not_verified")}"\n    {error}\n'
            if record["outcome"] not in ("not-applicable", "timed-out"):
                ran.append(record)
    dates = sorted({r["date"] for r in ran})
    devices = sorted({r.get("devices") for r in ran if r.get("devices")})
    lines = []
    for env in envs.load():
        mine = [r for r in ran if r["env"] == env.name]
        if mine:
            lines.append(t("verified_line", env=_env(env.name), label=_from(_label(mine[0])), mine=len(mine), total=len(paths)))
    head = t("verified_head", snippets=len(paths), s="s" if len(paths) != 1 else "", runs=len(ran), replicas=runner.REPLICAS,
             devices="; ".join(devices), date=dates[-1])
    return f'!!! success "{t("verified_on")}"\n    {head}\n\n' + _indent("\n".join(lines)) + "\n"


def _translated(entry_id: str, key: str, english: str) -> str:
    """A front matter field (`title`, `fix`) of the entry's page in the current language; the
    English one where that page does not have it."""
    page = registry.DOCS / "e" / f"{entry_id}.{i18n.language()}.md"
    if i18n.language() != i18n.DEFAULT and page.exists():
        value = registry.front_matter(page)[0].get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return english


def _title(entry) -> str:
    return _translated(entry.id, "title", entry.title)


def entries() -> str:
    lines = []
    for entry in registry.load().values():
        if entry.status == "published":
            lines.append(f"- [**{entry.id}** — {_title(entry)}](e/{entry.id}.md)")
    return "\n".join(lines) + "\n"


def error_index() -> str:
    """Every entry, its one-line fix and the messages it answers, each with the releases where a
    snippet of the entry raised it (from the error index: registry, front matter, evidence)."""
    out = []
    for item in errors.build()["entries"]:
        if item["status"] != "published":
            continue
        title, fix = _translated(item["id"], "title", item["title"]), _translated(item["id"], "fix", item["fix"])
        out.append(f"## {item['id']}: {title}\n\n[{item['id']}](e/{item['id']}.md) · {t('fix_label', fix=fix)}\n")
        groups: dict[tuple, list[dict]] = {}
        for run in item["reproduced"]:
            key = (run["exception"], run["headline"])
            groups.setdefault(key, []).append(run)
        out.append(f'<div class="tfd-errors" markdown>\n\n| {t("message")} | {t("reproduced_on")} |\n|---|---|')
        for (exception, headline), runs in groups.items():
            # the message is text: no Markdown inside it (a backtick would open a code span in the code)
            text = html.escape(messages.one_line(exception, headline)).replace("|", "&#124;").replace("`", "&#96;").replace("[", "&#91;")
            out.append(f'| <code class="tfd-message" {pages.MARK_ATTRIBUTE}="evidence">{text}</code> '
                       f'| {_from(_releases_prose(runs))} |')
        out.append("\n</div>\n")
    return "\n".join(out) + "\n"


def _figure(name: str, value) -> str:
    """A figure of the coverage page, marked with what it is, so the tests read it back."""
    return f'<span data-tfd-coverage="{html.escape(name)}">{value}</span>'


def coverage_table(part: str = "summary") -> str:
    """The coverage page (tfdist_kb/site/coverage.py, from the real-error corpus): `summary` (the overall
    figures), `answered` (each family that has an entry: its pastes, its entries, the share that reach
    them first) or `uncovered` (each family with pastes no entry answers, and why)."""
    lang = i18n.language()
    c = coverage.compute()
    if part == "summary":
        return t("cov_summary", pastes=_figure("pastes", c.pastes), families=_figure("families", len(c.families)),
                 tpu=_figure("tpu", c.tpu), counted=_figure("counted", c.counted),
                 reached=_figure("reached", c.reached), share=_figure("share", c.share),
                 false=_figure("false-links", len(c.false_links))) + "\n"
    if part == "answered":
        rows = [f"| {t('cov_family')} | {t('cov_pastes')} | {t('cov_tpu')} | {t('cov_entries')} | {t('cov_reach')} |",
                "|---|---:|---:|---|---|"]
        for f in c.families:
            if not f.entries:
                continue
            name = f.name
            entries = t("list_sep").join(f"[{e}](e/{e}.md)" for e in f.entries)
            reach = t("cov_reach_cell", reached=_figure(f"{name}:reached", f.reached),
                      counted=_figure(f"{name}:counted", f.counted),
                      share=_figure(f"{name}:share", coverage.percent(f.reached, f.counted))) if f.counted else t("cov_all_tpu")
            rows.append(f"| {html.escape(f.title[lang])} (`{name}`) | {_figure(f'{name}:pastes', f.pastes)} | "
                        f"{_figure(f'{name}:tpu', f.tpu)} | {entries} | {reach} |")
        return "\n".join(rows) + "\n"
    if part == "uncovered":
        rows = [f"| {t('cov_family')} | {t('cov_uncovered_count')} | {t('cov_tpu')} | {t('cov_why')} |",
                "|---|---:|---:|---|"]
        for f in c.families:
            if not f.uncovered and not (f.tpu and not f.entries):
                continue
            why = html.escape(f.why[lang]) if f.why else t("cov_no_reason")
            rows.append(f"| {html.escape(f.title[lang])} (`{f.name}`) | {_figure(f'{f.name}:uncovered', f.uncovered)} | "
                        f"{_figure(f'{f.name}:tpu', f.tpu) if not f.entries else f.tpu} | {why} |")
        return "\n".join(rows) + "\n"
    raise ValueError(f"coverage_table: part must be summary, answered or uncovered, not {part!r}")


def tfdist_package(config: dict | None = None) -> str:
    """How to install tfdist from the site itself: the wheel the build publishes in download/ (a
    link relative to a page at the top of docs/), the one pip command, and the repository when
    mkdocs.yml names one (repo_url)."""
    config = config or {}
    base = (config.get("site_url") or errors.base_url()).rstrip("/") + "/"
    text = t("package_download", wheel=f"{wheel.FOLDER}/{wheel.published_name()}", address=f"{base}{wheel.FOLDER}/")
    if config.get("repo_url"):
        text += t("package_source", repo=config["repo_url"])
    return text


def on_pre_page_macros(env):  # mkdocs-macros: before each page, the language it is built in
    i18n.set_language(i18n.page_language(env.page))


def define_env(env):  # mkdocs-macros entry point
    for macro in (outcome, outcomes, entries, claim, version, bisection, error_index, users_see, reductions,
                  printed, in_snippet, coverage_table):
        env.macro(macro)
    env.macro(environment, "env")  # {{ env("tf2.4") }}, {{ env("tf2.4", "about") }}
    env.variables["envs"] = envs.load()
    env.variables["tags"] = registry.TAGS

    @env.macro
    def verified_on_page(entry: str | None = None):
        return verified_on(entry, env.page)

    env.variables["verified_on"] = verified_on_page

    def tfdist_package_here():
        return tfdist_package(env.conf)

    env.macro(tfdist_package_here, "tfdist_package")
