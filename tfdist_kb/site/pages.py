"""What is wrong with a page: `audit(text)` reads a page's markdown and returns its problems,
each as "line N: what is wrong; what to do". The page tests run it on docs/, the mutation tests on
altered copies of it.

Checked: no pytest skip marker anywhere (a skipped block would count as executed); every fenced
block is a snippet include, an executed block, a source quote of a pinned release, a Mermaid
diagram, or inside a "Not run: <reason>" admonition (kind(); the hook marks each such block, and
the rendered audit (h) fails every block it did not mark); an entry page includes each of its
snippets and shows an outcome() of each. Versions are checked where readers see them, in the
rendered output (i): the Markdown is not audited for them, since no list of spellings is complete. HTML
comments are removed before anything else is read, so nothing inside one counts. An entry page and
its snippets keep no placeholder of `make new-entry` (`TODO(author)`), comments included. An entry
page opens with a "What users see" box whose message a macro renders from the evidence.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..proof import envs, runner
from . import registry

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)
INCLUDE = re.compile(r'^--8<-- "(?P<target>TFD\d{3}/[\w-]+\.py):example"$')
RUNNER_INCLUDE = '--8<-- "replicas.py"'  # the device setup the runner executes before every snippet
QUOTE = re.compile(r'title="(?P<dist>[\w.-]+) (?P<version>[\w.]+) · (?P<path>[\w./-]+)"')
EXECUTED_INFO = {"python", "bash", "sh"}  # collected by pytest-codeblocks as they are
DIAGRAM_INFO = {"mermaid"}  # drawn as SVG by tfdist_kb.site.diagrams: no code block; its labels are checked as rendered (i)
COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
MACRO = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
OUTCOME_CALL = re.compile(r"""\boutcome\(\s*["'](?P<target>TFD\d{3}/[\w-]+\.py)["']""")
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
INLINE_CODE = re.compile(r"(`+)[^\n]*?(?<!`)\1(?!`)")

# (a) pytest-codeblocks acts on a line that, stripped, starts with "<!--", optional dashes and
# blanks, then "pytest-codeblocks:" or "pytest.mark."; any comment naming pytest is refused.
SKIP_MARKERS = [re.compile(r"<!--(?:(?!-->).)*?pytest", re.DOTALL | re.IGNORECASE),
                re.compile(r"pytest[-_]codeblocks\s*:", re.IGNORECASE),
                re.compile(r"\bimportorskip\b|\bpytest\s*\.\s*(?:skip|xfail)\s*\(|\bpytest\s*\.\s*mark\s*\.\s*(?:skip|xfail)",
                           re.IGNORECASE)]
NOT_SKIPPING = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:[-\s]*(?:cont|expected-output(?:-ignore-whitespace)?)[-\s]*-->\s*$")

# (f) what `make new-entry` (tfdist_kb/commands/scaffold.py) leaves for the author: plain or regex-escaped.
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
    """(b) Every fenced block is accounted for, as kind() (the same function that marks the rendered
    blocks) sees it, and each include and quote checked; `text` has its comments removed. Quotes that
    only an environment not built here could check are appended to `skipped`."""
    problems = []
    for m in FENCE.finditer(text):
        info, body, line = m["info"].strip(), m["body"], _line(text, m.start())
        found = kind(m["info"], body, text, m.start(), m["indent"])
        include, quote = INCLUDE.match(body.strip()), QUOTE.search(info)
        if found in ("setup", "executed") or info in DIAGRAM_INFO:
            continue  # the runner's own setup, shown as it runs; a block pytest-codeblocks runs; a diagram
        if include:
            wanted = f'python title="snippets/{include["target"]}"'
            if not (runner.SNIPPETS / include["target"]).exists():
                problems.append(f"line {line}: includes missing snippet {include['target']}")
            elif info != wanted:
                problems.append(f"line {line}: a snippet include's fence must be ```{wanted}, not ```{info}")
        elif quote:
            dist, version, path = quote["dist"], quote["version"], quote["path"]
            if found != "quote":
                problems.append(f"line {line}: source quote of {dist} {version}: no environment pins "
                                f"{dist}=={version} (tfdist_kb/proof/envs/*.txt); quote a release an environment pins")
                continue
            source = quoted_file(dist, version, path)
            if source is None:
                if skipped is not None:
                    skipped.append(f"line {line}: no built environment has {dist}=={version}")
            elif not source.exists():
                problems.append(f"line {line}: {path} is not in {dist} {version}")
            elif body.rstrip("\n") not in source.read_text():
                problems.append(f"line {line}: quote is not a verbatim excerpt of {dist} {version} {path}")
        elif found is None:
            problems.append(f"line {line}: ```{info} block is neither a snippet include, an executed block, "
                            f"a checked source quote, nor inside a '!!! note \"Not run: <reason>\"' admonition")
    return problems


# ---- (h) every code block accounted for, on the rendered page ----------------------------------
# The hook (tfdist_kb/site/mkdocs_hooks.py, on_page_markdown, after the macros) gives each fence the audit
# accounts for an attribute naming its kind; the macros mark the outputs they fence themselves
# ("record"). The rendered audit fails every <pre> without one: an indented block, a fence nothing
# accounts for, a <pre> typed as HTML.
BLOCK_ATTRIBUTE = "data-tfd-block"
BLOCK_KINDS = {"snippet": "an included, executed snippet", "setup": "the runner's device setup, as it runs",
               "executed": "a block pytest-codeblocks executes", "quote": "a source quote of a pinned release",
               "not-run": "inside a 'Not run: <reason>' admonition", "record": "a recorded output (a macro)",
               "notebook": "a code cell or recorded output of a generated notebook (tfdist_kb.site.notebooks: the "
                           "snippet's example, the runner's setup, the evidence's outputs)"}


def kind(info: str, body: str, text: str, start: int, indent: str) -> str | None:
    """What the fence at `start` of `text` (comments removed) is, as BLOCK_KINDS names it; None for a
    fence nothing accounts for (the audit says why) and for a diagram (drawn: no code block)."""
    info = info.strip()
    if body.strip() == RUNNER_INCLUDE:
        return "setup"
    if info in EXECUTED_INFO:
        return "executed"
    include, quote = INCLUDE.match(body.strip()), QUOTE.search(info)
    if include:
        ok = (runner.SNIPPETS / include["target"]).exists() and info == f'python title="snippets/{include["target"]}"'
        return "snippet" if ok else None
    if quote:
        return "quote" if _pinned(quote["dist"], quote["version"]) else None
    if info not in DIAGRAM_INFO and _not_run_admonition(text, start, indent):
        return "not-run"
    return None


OPTION = re.compile(r'^(?P<lang>[\w+#.-]+)?(?P<options>(?:\s+[\w-]+="[^"]*")*)\s*$')


def mark_fences(markdown: str) -> str:
    """`markdown` with every fence the audit accounts for opened in pymdownx.superfences' brace form,
    carrying BLOCK_ATTRIBUTE="<kind>" (its language and options kept); other fences as they were."""
    clean = _blank(markdown, COMMENT)
    out, end = [], 0
    for m in FENCE.finditer(clean):
        found, info = kind(m["info"], m["body"], clean, m.start(), m["indent"]), m["info"].strip()
        parts = OPTION.match(info)
        if found is None or parts is None or info.startswith("{"):
            continue
        lang = f'.{parts["lang"]} ' if parts["lang"] else ""
        opening = f'{m["indent"]}{m["fence"]}{{{lang}{parts["options"].strip()} {BLOCK_ATTRIBUTE}="{found}"}}'
        line_end = markdown.index("\n", m.start())
        out += [markdown[end:m.start()], opening]
        end = line_end
    return "".join(out) + markdown[end:]


# A block that cannot run sits in an admonition titled "Not run: <reason>" ("未运行：<原因>" on a Chinese page).
NOT_RUN = re.compile(r'^\s*(!!!|\?\?\?\+?) \w+ "(?:Not run: |未运行：).+"')


def _not_run_admonition(text: str, start: int, indent: str) -> bool:
    for line in reversed(text[:start].splitlines()):
        if line.strip() and not line.startswith(indent or "\0"):
            return bool(NOT_RUN.match(line)) and len(indent) > 0
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


def audit(text: str, entry: str | None = None, skipped: list | None = None) -> list[str]:
    """Every problem of the page `text`, in line order. `entry` (default: the front matter's id) is
    the entry whose snippets the page must show; quotes not checkable here go to `skipped`."""
    if entry is None:
        match = FRONT_MATTER.match(text)
        meta = re.search(r"^id:\s*(TFD\d{3})\s*$", match.group(0), re.MULTILINE) if match else None
        entry = meta.group(1) if meta else None
    clean = _blank(text, COMMENT)
    problems = skip_markers(text) + fences(clean, skipped)
    if entry:
        problems += snippets_shown(clean, entry) + placeholders(text, entry) + users_see_box(clean)
    return sorted(problems, key=lambda p: int(p.split(":")[0].split()[1]))


def audit_docs(docs: Path = registry.DOCS) -> dict[str, list[str]]:
    """{page path relative to docs: its problems} for every page under `docs`."""
    return {page.relative_to(docs).as_posix(): audit(page.read_text()) for page in sorted(docs.rglob("*.md"))}


# ---- (i) versions only where the evidence put them: the rendered output ---------------------------
# Checked on what readers get (the built HTML of both languages, errors.json, the PDF text), whatever
# the Markdown spelled: every version-like token (digits, a dot, digits; after Unicode normalisation,
# so a no-break space, a full-width digit or an entity changes nothing) outside code blocks must lie
# inside an element a macro marked (MARK_ATTRIBUTE: from the evidence or from envs.toml and its
# locks), inside a <q cite="https://..."> that quotes a cited report, or, in a drawn diagram, be one
# of the values the macros gave its labels (DIAGRAM_VALUES, tfdist_kb/site/diagrams.py).
import html as _html  # noqa: E402
import html.parser  # noqa: E402
import unicodedata  # noqa: E402

MARK_ATTRIBUTE = "data-tfd-from"
MARK_SOURCES = {"evidence", "envs", "snippet"}
DIAGRAM_VALUES = "data-tfd-values"
VERSION = re.compile(r"\d+(?:[ \t]*\.[ \t]*\d+)+")
ADDRESS = re.compile(r"\bhttps?://\S+")
CITED = re.compile(r"^https://(?!127\.0\.0\.1|localhost)[\w.-]+\.[a-z]{2,}/\S+$")
CODE_TAGS = {"pre", "script", "style", "template", "textarea"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TEXT_ATTRIBUTES = ("title", "alt", "aria-label")
RENDERED_ADVICE = (f"render it with a macro (claim, version, bisection, outcome, users_see, env: their output "
                   f"carries {MARK_ATTRIBUTE}), or quote a cited report inside <q cite=\"https://...\">")


def normalised(text: str) -> str:
    """`text` as a reader sees it: entities resolved, Unicode compatibility forms folded (no-break
    and full-width spaces, full-width digits and dots), zero-width characters dropped."""
    text = unicodedata.normalize("NFKC", _html.unescape(text))
    return re.sub(r"[\u200b-\u200d\u2060\ufeff\u00ad]", "", text)


def version_tokens(text: str) -> list[str]:
    """The version-like tokens of `text` (spaces around the dots removed): "2.6", "3.11.7"."""
    return [re.sub(r"\s", "", m.group(0)) for m in VERSION.finditer(normalised(text))]


class _Rendered(html.parser.HTMLParser):
    """Walks a built page: version tokens in text (and in title/alt/aria-label) that no marked
    element, cited quotation or code block holds; <pre> blocks that carry no BLOCK_ATTRIBUTE."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, frozenset, bool]] = []  # (tag, exempt, diagram values, block kind)
        self.unmarked: list[tuple[str, str]] = []
        self.bare: list[str] = []
        self.last_text = ""

    def _state(self):
        return self.stack[-1][1:] if self.stack else (False, frozenset(), False)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        exempt, values, block = self._state()
        block = block or bool(attrs.get(BLOCK_ATTRIBUTE) in BLOCK_KINDS)
        if tag == "pre" and not block:
            self.bare.append(self.last_text.strip()[-60:])
        exempt = (exempt or tag in CODE_TAGS or attrs.get(MARK_ATTRIBUTE) in MARK_SOURCES or block
                  or (tag == "q" and bool(CITED.match(attrs.get("cite") or ""))))
        if attrs.get(DIAGRAM_VALUES) is not None:
            values = values | frozenset(version_tokens(attrs[DIAGRAM_VALUES]))
        if not exempt:
            for name in TEXT_ATTRIBUTES:
                self._check(attrs.get(name) or "", values, f'{tag} {name}="..."')
        if tag not in VOID:
            self.stack.append((tag, exempt, values, block))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        exempt, values, _ = self._state()
        if data.strip():
            self.last_text = data
        if not exempt:
            self._check(data, values, None)

    def _check(self, text, values, where):
        text = ADDRESS.sub(lambda m: " " * len(m.group(0)), normalised(text))  # an address is no version
        for m in VERSION.finditer(text):
            token = re.sub(r"\s", "", m.group(0))
            if token not in values:
                context = " ".join(text[max(0, m.start() - 40):m.end() + 20].split())
                self.unmarked.append((token, f"{where}: {context}" if where else context))


def _walk(page: str) -> _Rendered:
    parser = _Rendered()
    parser.feed(page)
    parser.close()
    return parser


def rendered_versions(page: str) -> list[str]:
    """(i) Every version-like token of a built HTML page that is neither code nor marked."""
    return [f"version-like {token!r} outside code and outside marked output ({context!r}): {RENDERED_ADVICE}"
            for token, context in _walk(page).unmarked]


def rendered_blocks(page: str) -> list[str]:
    """(h) Every <pre> of a built HTML page that carries no BLOCK_ATTRIBUTE naming its kind."""
    return [f"code block after {text!r} is unaccounted for: a code block is a snippet include, a block "
            f"pytest-codeblocks runs, a checked source quote, or inside a '!!! note \"Not run: <reason>\"' "
            f"admonition (an indented block is none of them: fence it)" for text in _walk(page).bare]


def marked_tokens(page: str) -> set[str]:
    """The version tokens a built page shows inside marked elements, cited quotations, code blocks and
    diagrams' macro values: the tokens its printed text may hold (the PDF is checked against them)."""
    found: set[str] = set()

    class Collect(html.parser.HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.stack: list[tuple[str, bool]] = []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            inside = (bool(self.stack and self.stack[-1][1]) or attrs.get(MARK_ATTRIBUTE) in MARK_SOURCES
                      or (tag == "q" and bool(CITED.match(attrs.get("cite") or ""))) or tag in CODE_TAGS
                      or attrs.get(BLOCK_ATTRIBUTE) in BLOCK_KINDS)
            if attrs.get(DIAGRAM_VALUES):
                found.update(version_tokens(attrs[DIAGRAM_VALUES]))
            if tag not in VOID:
                self.stack.append((tag, inside))

        def handle_endtag(self, tag):
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i][0] == tag:
                    del self.stack[i:]
                    return

        def handle_data(self, data):
            if self.stack and self.stack[-1][1]:
                found.update(version_tokens(data))

    parser = Collect()
    parser.feed(page)
    parser.close()
    return found


EVIDENCE_FIELDS = {"reproduced"}  # errors.json: what tfdist_kb.site.errors copies from the runs
ADDRESS_FIELDS = {"base_url", "url", "path"}  # the site's address (an IP is no version)


def plain_versions(index, where: str = "") -> list[str]:
    """(i) errors.json (the site's and the package's): no version-like token in any field the
    pages' front matter or the registry fills (titles, fixes, tags, signatures), only in the
    fields generated from the evidence (each entry's `reproduced`)."""
    problems = []
    if isinstance(index, dict):
        for key, value in index.items():
            if key in EVIDENCE_FIELDS or key in ADDRESS_FIELDS:
                continue
            problems += plain_versions(value, f"{where}.{key}" if where else key)
    elif isinstance(index, list):
        for n, value in enumerate(index):
            name = value.get("id") if isinstance(value, dict) and value.get("id") else n
            problems += plain_versions(value, f"{where}[{name}]")
    elif isinstance(index, str):
        text = index.replace("\\.", ".")  # a signature's escaped dot reads as a dot
        problems += [f"{where}: version-like {token!r} in {index[:80]!r}: a title, fix or signature types no "
                     f"version (the releases an error was reproduced on come from the evidence)"
                     for token in version_tokens(text)]
    return problems
