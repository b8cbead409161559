"""What is wrong with a page: `audit(text)` reads a page's markdown and returns its problems,
each as "line N: what is wrong; what to do". The page tests run it on docs/, the mutation tests on
altered copies of it.

Checked: no pytest skip marker anywhere (a skipped block would count as executed); every fenced
block is a snippet include, an executed block, a source quote of a pinned release, a Mermaid
diagram (its labels count as prose), or inside a "Not run: <reason>" admonition; an entry page includes each of its snippets and shows an outcome()
of each; prose types no version or environment name (claim() and version() render them). HTML
comments are removed before anything else is read, so nothing inside one counts. An entry page and
its snippets keep no placeholder of `make new-entry` (`TODO(author)`), comments included. An entry
page opens with a "What users see" box whose message a macro renders from the evidence.
"""
from __future__ import annotations

import re
from pathlib import Path

from . import envs, registry, runner

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)
INCLUDE = re.compile(r'^--8<-- "(?P<target>TFD\d{3}/[\w-]+\.py):example"$')
RUNNER_INCLUDE = '--8<-- "replicas.py"'  # the device setup the runner executes before every snippet
QUOTE = re.compile(r'title="(?P<dist>[\w.-]+) (?P<version>[\w.]+) · (?P<path>[\w./-]+)"')
EXECUTED_INFO = {"python", "bash", "sh"}  # collected by pytest-codeblocks as they are
DIAGRAM_INFO = {"mermaid"}  # drawn as SVG by tfdist_kb.diagrams: no code; its text is prose (checked below)
COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
MACRO = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
OUTCOME_CALL = re.compile(r"""\boutcome\(\s*["'](?P<target>TFD\d{3}/[\w-]+\.py)["']""")
QUOTATION = re.compile(r"<q\b[^>]*>.*?</q>", re.DOTALL | re.IGNORECASE)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
TITLE = re.compile(r"^# .*$", re.MULTILINE)
INLINE_CODE = re.compile(r"(`+)[^\n]*?(?<!`)\1(?!`)")

# (a) pytest-codeblocks acts on a line that, stripped, starts with "<!--", optional dashes and
# blanks, then "pytest-codeblocks:" or "pytest.mark."; any comment naming pytest is refused.
SKIP_MARKERS = [re.compile(r"<!--(?:(?!-->).)*?pytest", re.DOTALL | re.IGNORECASE),
                re.compile(r"pytest[-_]codeblocks\s*:", re.IGNORECASE),
                re.compile(r"\bimportorskip\b|\bpytest\s*\.\s*(?:skip|xfail)\s*\(|\bpytest\s*\.\s*mark\s*\.\s*(?:skip|xfail)",
                           re.IGNORECASE)]
NOT_SKIPPING = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:[-\s]*(?:cont|expected-output(?:-ignore-whitespace)?)[-\s]*-->\s*$")

# (e) typed versions: an environment name (or what looks like one), a named TensorFlow/Keras
# release, a bare three-part version number.
ENV_LIKE = re.compile(r"(?<![\w.-])tf\d+\.\d+[\w.-]*(?<![.-])", re.IGNORECASE)
NAMED = re.compile(r"(?<![\w.-])(?:tensorflow(?:[-_](?:cpu|gpu))?|tf(?:[-_.]keras)?|keras)[ \t]+v?\d+\.\d+(?:\.\d+)*",
                   re.IGNORECASE)
BARE = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:\.\d+)*(?![\w])")
PYTHON_BEFORE = re.compile(r"python[ \t]+$", re.IGNORECASE)
ADVICE = 'use {{ claim(...) }} or {{ version(...) }}, or quote it inside <q>...</q>'

# (f) what `make new-entry` (tfdist_kb/scaffold.py) leaves for the author: plain or regex-escaped.
PLACEHOLDER = re.compile(r"TODO\\?\(author\\?\)")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _blank(text: str, pattern: re.Pattern) -> str:
    """`text` with every match of `pattern` turned into spaces (newlines kept: offsets and line
    numbers stay as they were)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def skip_markers(raw: str) -> list[str]:
    """(a) On the raw text (a marker works whether or not markdown sees a comment), less inline code
    in prose: pytest-codeblocks reads a marker only where a line starts with it, or code in a block."""
    problems, seen, text, end = [], set(), "", 0
    for fence in FENCE.finditer(raw):
        text += _blank(raw[end:fence.start()], INLINE_CODE) + fence.group(0)
        end = fence.end()
    text += _blank(raw[end:], INLINE_CODE)
    for pattern in SKIP_MARKERS:
        for m in pattern.finditer(text):
            line = _line(raw, m.start())
            if line not in seen and not NOT_SKIPPING.match(raw.splitlines()[line - 1]):
                seen.add(line)
                marker = raw.splitlines()[line - 1].strip()
                problems.append(f"line {line}: pytest skip/xfail marker {marker!r}: a skipped block would count as "
                                "executed; remove it (a block that must not run goes inside a "
                                "'!!! note \"Not run: <reason>\"' admonition)")
    return sorted(problems, key=lambda p: int(p.split(":")[0].split()[1]))


def quoted_file(dist: str, version: str, path: str) -> Path | None:
    """The installed file `path` of distribution `dist`==`version` in a built environment that
    pins it; None if the environments that pin it are not built."""
    for env in envs.load():
        if env.pins().get(envs.normalise(dist)) == version and envs.is_ready(env):
            found = sorted(env.path.glob(f"lib/python*/site-packages/{path}"))
            return found[0] if found else env.path / "MISSING" / path
    return None


def _pinned(dist: str, version: str) -> bool:
    return any(env.pins().get(envs.normalise(dist)) == version for env in envs.load())


def fences(text: str, skipped: list | None = None) -> list[str]:
    """(b) Every fenced block is accounted for; `text` has its comments removed. Quotes that only an
    environment not built here could check are appended to `skipped`."""
    problems = []
    for m in FENCE.finditer(text):
        info, body, line = m["info"].strip(), m["body"], _line(text, m.start())
        include, quote = INCLUDE.match(body.strip()), QUOTE.search(info)
        if body.strip() == RUNNER_INCLUDE or info in EXECUTED_INFO or info in DIAGRAM_INFO:
            continue  # the runner's own setup, shown as it runs; a block pytest-codeblocks runs; a diagram
        if include:
            wanted = f'python title="snippets/{include["target"]}"'
            if not (runner.SNIPPETS / include["target"]).exists():
                problems.append(f"line {line}: includes missing snippet {include['target']}")
            elif info != wanted:
                problems.append(f"line {line}: a snippet include's fence must be ```{wanted}, not ```{info}")
        elif quote:
            dist, version, path = quote["dist"], quote["version"], quote["path"]
            if not _pinned(dist, version):
                problems.append(f"line {line}: source quote of {dist} {version}: no environment pins "
                                f"{dist}=={version} (tfdist_kb/envs/*.txt); quote a release an environment pins")
                continue
            source = quoted_file(dist, version, path)
            if source is None:
                if skipped is not None:
                    skipped.append(f"line {line}: no built environment has {dist}=={version}")
            elif not source.exists():
                problems.append(f"line {line}: {path} is not in {dist} {version}")
            elif body.rstrip("\n") not in source.read_text():
                problems.append(f"line {line}: quote is not a verbatim excerpt of {dist} {version} {path}")
        elif not _not_run_admonition(text, m.start(), m["indent"]):
            problems.append(f"line {line}: ```{info} block is neither a snippet include, an executed block, "
                            f"a checked source quote, nor inside a '!!! note \"Not run: <reason>\"' admonition")
    return problems


def _not_run_admonition(text: str, start: int, indent: str) -> bool:
    for line in reversed(text[:start].splitlines()):
        if line.strip() and not line.startswith(indent or "\0"):
            return bool(re.match(r'^\s*(!!!|\?\?\?\+?) \w+ "Not run: .+"', line)) and len(indent) > 0
    return False


def snippets_shown(text: str, entry: str) -> list[str]:
    """(d) Every snippets/<entry>/*.py is included by a fence and has an outcome() box on the page;
    `text` has its comments removed."""
    included = {m["target"] for m in (INCLUDE.match(f["body"].strip()) for f in FENCE.finditer(text)) if m}
    calls = _blank(text, FENCE)
    shown = {m["target"] for macro in MACRO.finditer(calls) for m in OUTCOME_CALL.finditer(macro.group(0))}
    problems = []
    for path in sorted((runner.SNIPPETS / entry).glob("*.py")):
        name = f"{entry}/{path.name}"
        if name not in included:
            problems.append(f"line 1: snippet {name} is not included: add a fence "
                            f'```python title="snippets/{name}" holding --8<-- "{name}:example" (outside comments)')
        if name not in shown:
            problems.append(f'line 1: snippet {name} has no outcome box: add {{{{ outcome("{name}") }}}} '
                            f"(outside comments and code)")
    return problems


def placeholders(raw: str, entry: str) -> list[str]:
    """(f) Placeholders of the scaffold left in an entry page (the raw text: front matter and
    comments count, a placeholder anywhere is unfinished work) or in the entry's snippets."""
    def found(text: str) -> list[tuple[int, str]]:
        return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if PLACEHOLDER.search(line)]
    problems = [f"line {n}: placeholder left by make new-entry ({line[:60]!r}): write the real text, "
                f"then remove the marker" for n, line in found(raw)]
    for path in sorted((runner.SNIPPETS / entry).glob("*.py")):
        problems += [f"line 1: snippets/{entry}/{path.name} line {n} has a placeholder left by make new-entry "
                     f"({line[:60]!r}): write the real example, then remove the marker"
                     for n, line in found(path.read_text())]
    return problems


BOX = re.compile(r"^!!! question\b[^\n]*\n(?P<body>(?:[ \t]*\n|[ \t]+[^\n]*\n)*)", re.MULTILINE)
FOLD = re.compile(r"^(?P<indent>[ \t]+)\?\?\?\+?[^\n]*\n(?:[ \t]*\n|(?P=indent)[ \t]+[^\n]*\n)*", re.MULTILINE)
RENDERED = re.compile(r"\b(?:users_see|outcome)\(")
TYPED_MESSAGE = re.compile(r"`+\s*(?:\w+\.)*\w*(?:Error|Exception|Exit):\s")


def users_see_box(text: str) -> list[str]:
    """(g) An entry page opens with its "What users see" box (`!!! question`, before the first
    section), and the message in it is the recorded one: a users_see() (or, for a silent failure,
    an outcome()) renders it. An exception line typed by hand is allowed only in a fold of the box
    (other wordings, quoted from a cited report); `text` has its comments removed."""
    box = BOX.search(text)
    first_section = re.search(r"^## ", text, re.MULTILINE)
    if not box or (first_section and box.start() > first_section.start()):
        return ["line 1: no \"What users see\" box: open the page with !!! question and render the message "
                "with {{ users_see(\"TFDnnn/failing.py\") | indent(4) }}"]
    body, where = box.group("body"), _line(text, box.start())
    if not any(RENDERED.search(m.group(0)) for m in MACRO.finditer(body)):
        return [f"line {where}: the \"What users see\" box types its message: render the recorded one with "
                f"{{{{ users_see(\"TFDnnn/failing.py\") | indent(4) }}}} (a silent failure: outcome())"]
    top = _blank(_blank(body, FOLD), MACRO)
    return [f"line {where + _line(top, m.start()) - 1}: the \"What users see\" box types the message "
            f"{top[m.start():].split(chr(10))[0].strip('` ')[:50]!r}...: render it with users_see(), "
            f"or move a cited wording into a fold" for m in TYPED_MESSAGE.finditer(top)]


def prose(text: str) -> str:
    """The prose of a page: `text` (comments removed) without front matter, the H1 title, fenced
    code (with source-quote titles), macro calls and <q> quotations, blanked in place. A diagram's
    text stays: a label may no more type a version than a sentence."""
    def code(m: re.Match) -> str:
        keep = (m.start("body"), m.end("body")) if m["info"].strip() in DIAGRAM_INFO else (m.end(), m.end())
        whole, start = m.group(0), m.start()
        return (re.sub(r"[^\n]", " ", whole[:keep[0] - start]) + whole[keep[0] - start:keep[1] - start]
                + re.sub(r"[^\n]", " ", whole[keep[1] - start:]))
    text = FENCE.sub(code, _blank(text, FRONT_MATTER))
    for pattern in (MACRO, QUOTATION):
        text = _blank(text, pattern)
    title = TITLE.search(text)
    return text[:title.start()] + " " * len(title.group(0)) + text[title.end():] if title else text


def typed_versions(text: str) -> list[str]:
    """(e) Environment names and TensorFlow/Keras versions typed in prose; `text` has its comments removed."""
    text = prose(text)
    problems, taken = [], []
    for kind, pattern in (("environment name", ENV_LIKE), ("version", NAMED), ("version", BARE)):
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if pattern is BARE and PYTHON_BEFORE.search(text[:m.start()].rsplit("\n", 1)[-1]):
                continue
            taken.append(m.span())
            problems.append((m.start(), f"line {_line(text, m.start())}: typed {kind} {m.group(0)!r}: {ADVICE}"))
    return [p for _, p in sorted(problems)]


def audit(text: str, entry: str | None = None, skipped: list | None = None) -> list[str]:
    """Every problem of the page `text`, in line order. `entry` (default: the front matter's id) is
    the entry whose snippets the page must show; quotes not checkable here go to `skipped`."""
    if entry is None:
        match = FRONT_MATTER.match(text)
        meta = re.search(r"^id:\s*(TFD\d{3})\s*$", match.group(0), re.MULTILINE) if match else None
        entry = meta.group(1) if meta else None
    clean = _blank(text, COMMENT)
    problems = skip_markers(text) + fences(clean, skipped) + typed_versions(clean)
    if entry:
        problems += snippets_shown(clean, entry) + placeholders(text, entry) + users_see_box(clean)
    return sorted(problems, key=lambda p: int(p.split(":")[0].split()[1]))


def audit_docs(docs: Path = registry.DOCS) -> dict[str, list[str]]:
    """{page path relative to docs: its problems} for every page under `docs`."""
    return {page.relative_to(docs).as_posix(): audit(page.read_text()) for page in sorted(docs.rglob("*.md"))}
