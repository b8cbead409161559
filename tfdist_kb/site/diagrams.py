"""Mermaid diagrams with no network: rendered to SVG once, at authoring time, and inlined at build time.

A ```mermaid fence in a page is drawn by `make diagrams` (this module's command) with the npm
`mermaid` package (tfdist_kb/site/js) in Debian's Chromium, and the SVG is kept under
docs/assets/diagrams/, named by a hash of the fence's text as the page renders it (after the macros,
so a diagram that quotes claim() or version() is re-drawn when the evidence changes), of the
renderer's settings and of the pinned mermaid version. The site build only reads that file: the
pymdownx.superfences custom fence `fence()` below inlines it, so a page never loads mermaid from a
CDN and the build needs neither a browser nor the network. A fence whose SVG is missing is a
warning, i.e. an error in the strict build, that names the command to run.

Every diagram needs `accTitle: ...` (and, better, `accDescr: ...`): the SVG's accessible name.

  python -m tfdist_kb.site.diagrams            render the missing SVGs, delete the ones no page uses
  python -m tfdist_kb.site.diagrams --check    exit 1 if one is missing
"""
from __future__ import annotations

import argparse
import hashlib
import html
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "docs" / "assets" / "diagrams"
JS = Path(__file__).resolve().parent / "js"
MERMAID_JS = JS / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
COMMAND = "make diagrams"
COLLECT_VARIABLE = "TFDIST_DIAGRAMS_COLLECT"  # set by the render command: every fence seen is recorded there
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

# The page's own font stack (theme.font: false), so the boxes are sized for the text readers see.
FONT = "-apple-system, BlinkMacSystemFont, Helvetica, Arial, 'Noto Sans CJK SC', sans-serif"
CONFIG = {
    "startOnLoad": False,
    "securityLevel": "strict",
    "theme": "neutral",
    "fontFamily": FONT,
    "themeVariables": {"fontFamily": FONT},
    # Labels as SVG text, not HTML in foreignObject: prints, and reads the same everywhere.
    "htmlLabels": False,
    "flowchart": {"htmlLabels": False, "useMaxWidth": True},
    "deterministicIds": True,
}
# Bump when the drawing or the post-processing below changes: every SVG is drawn again.
RENDERER = 2
# Smallest scale a diagram is drawn at before its figure scrolls sideways instead (phones).
MIN_SCALE = 0.6

log = logging.getLogger("mkdocs.plugins.tfdist_kb.site.diagrams")
_page = {"src": None}


def normalise(source: str) -> str:
    lines = [line.rstrip() for line in source.expandtabs(4).splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indent = min((len(line) - len(line.lstrip()) for line in lines if line), default=0)
    return "\n".join(line[indent:] for line in lines)


def mermaid_version() -> str:
    return json.loads((JS / "package.json").read_text())["dependencies"]["mermaid"]


def key(source: str) -> str:
    """The SVG's name: what is drawn, how, and by which mermaid."""
    text = json.dumps([normalise(source), CONFIG, MIN_SCALE, RENDERER, mermaid_version()], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def path(source: str) -> Path:
    return DIR / f"{key(source)}.svg"


def on_page_markdown(markdown, page, **kwargs):
    """(MkDocs hook) Remember the page, for the message about a missing SVG."""
    from tfdist_kb.site import diagrams  # the module superfences calls, not the copy MkDocs loaded as a hook
    diagrams._page["src"] = page.file.src_uri
    return markdown


def fence(source, language, class_name, options, md, **kwargs):
    """pymdownx.superfences formatter for ```mermaid: the SVG `make diagrams` drew, inline. A macro's
    output in a label is drawn as its text; the figure lists those values (pages.DIAGRAM_VALUES), so
    the rendered audit accepts a version in a label only where a macro put it."""
    source, values = unmark(source)
    svg_path = path(source)
    collect = os.environ.get(COLLECT_VARIABLE)
    if collect:
        with open(collect, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key(source), "source": normalise(source), "page": _page["src"]}) + "\n")
    if not svg_path.is_file():
        if not collect:
            log.warning(f"Diagram in '{_page['src']}' (\"{normalise(source).splitlines()[0][:40]}\") has no SVG "
                        f"{svg_path.relative_to(ROOT)}: run `{COMMAND}`")
        return (f'<div class="admonition warning"><p class="admonition-title">Diagram not rendered: run '
                f'<code>{COMMAND}</code></p><pre><code>{html.escape(normalise(source))}</code></pre></div>')
    # data-search-exclude: the labels repeat the text around the figure and would crowd the index.
    from tfdist_kb.site import pages
    marked = f' {pages.DIAGRAM_VALUES}="{html.escape(" | ".join(values))}"' if values else ""
    return (f'<figure class="tfd-diagram" tabindex="0" data-search-exclude{marked}>'
            f'{svg_path.read_text(encoding="utf-8")}</figure>')


MARKED = re.compile(r'<(span|code) class="tfd-v" data-tfd-from="\w+">(.*?)</\1>', re.DOTALL)


def unmark(source: str) -> tuple[str, list[str]]:
    """`source` with each marked macro output (tfdist_kb.site.macros._from) replaced by its text, and those texts."""
    values: list[str] = []

    def text(m: re.Match) -> str:
        values.append(html.unescape(m.group(2)))
        return values[-1]
    return MARKED.sub(text, source), values


def collect() -> dict[str, dict]:
    """Every mermaid fence of the site, as its pages render it: one (non-strict) build."""
    with tempfile.TemporaryDirectory(prefix="tfdist-diagrams-") as tmp:
        record = Path(tmp) / "fences.jsonl"
        record.touch()
        environ = dict(os.environ, **{COLLECT_VARIABLE: str(record)})
        environ.pop("TFDIST_PREVIEW", None)  # a preview box must not end up in a diagram
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(Path(tmp) / "site")],
                              cwd=ROOT, env=environ, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"diagrams: the site build failed:\n{done.stderr[-3000:]}")
        fences = {}
        for line in record.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            fences.setdefault(item["key"], item)
        return fences


def _accessible(svg: str) -> bool:
    return bool(re.search(r"<title[ >]", svg)) and "aria-labelledby" in svg


def _min_width(svg: str) -> str:
    """Keep mermaid's `max-width: Npx` and add a floor, so a wide diagram scrolls rather than shrinks to nothing."""
    def widen(match):
        width = float(match.group(1))
        return f"max-width: {width:.0f}px; min-width: min({width:.0f}px, {width * MIN_SCALE:.0f}px)"
    return re.sub(r"max-width:\s*([\d.]+)px", widen, svg, count=1)


_GEOMETRY = re.compile(r'(\s(?:d|points|transform|viewBox|x|y|x1|x2|y1|y2|dx|dy|width|height|cx|cy|r|rx|ry)=")([^"]*)"')


def _round(svg: str) -> str:
    """Coordinates to 2 decimals: mermaid's rounded shapes are paths of thousands of 15-digit numbers."""
    def short(match):
        return f"{float(match.group()):.2f}".rstrip("0").rstrip(".")
    return _GEOMETRY.sub(lambda m: m.group(1) + re.sub(r"-?\d+\.\d{3,}", short, m.group(2)) + '"', svg)


def render(fences: dict[str, dict]):
    """Draw each fence in headless Chromium with the local mermaid bundle, yielding (name, SVG); no
    request may leave the browser."""
    from playwright.sync_api import Error, sync_playwright

    if not MERMAID_JS.is_file():
        raise SystemExit(f"diagrams: {MERMAID_JS.relative_to(ROOT)} is missing: run `make setup` (npm ci in tfdist_kb/site/js)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: route.abort())
            page.set_content(f'<!doctype html><html lang="en"><head><meta charset="utf-8"></head>'
                             f'<body style="font-family: {FONT}"></body></html>')
            page.add_script_tag(content=MERMAID_JS.read_text(encoding="utf-8"))
            for name, item in fences.items():
                try:
                    svg = page.evaluate(
                        """async ([id, source, config]) => {
                            mermaid.initialize({...config, deterministicIDSeed: id});
                            const {svg} = await mermaid.render(id, source);
                            return svg;
                        }""", [f"tfd-diagram-{name}", item["source"], CONFIG])
                except Error as error:
                    message = " ".join(str(error.message).split())[:300]
                    raise SystemExit(f"diagrams: mermaid cannot draw the diagram in {item['page']} "
                                     f"(\"{item['source'].splitlines()[0]}\"): {message}")
                if not _accessible(svg):
                    raise SystemExit(f"diagrams: the diagram in {item['page']} (\"{item['source'].splitlines()[0]}\") "
                                     f"has no accessible name: add a line `accTitle: <what it shows>` "
                                     f"(and `accDescr: <one or two sentences>`) to its source")
                external = re.findall(r"""(?:href|src)\s*=\s*["']\s*(?:https?:)?//[^"']*|url\(\s*["']?\s*(?:https?:)?//""", svg)
                if external:
                    raise SystemExit(f"diagrams: the diagram in {item['page']} refers to another host: {external[0]}")
                yield name, _min_width(_round(svg))
        finally:
            browser.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfdist_kb.site.diagrams", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which SVGs are missing (exit 1 if any)")
    args = parser.parse_args(argv)
    fences = collect()
    missing = {k: v for k, v in fences.items() if not (DIR / f"{k}.svg").is_file()}
    stale = sorted(p for p in DIR.glob("*.svg") if p.stem not in fences) if DIR.is_dir() else []
    if args.check:
        for k, item in missing.items():
            print(f"missing: {item['page']}: {item['source'].splitlines()[0]!r} -> {(DIR / f'{k}.svg').relative_to(ROOT)}")
        print(f"diagrams: {len(fences)} in the site, {len(missing)} missing, {len(stale)} unused")
        return 1 if missing else 0
    from tfdist_kb.proof import files  # (this module is also loaded by path, as a MkDocs hook)

    DIR.mkdir(parents=True, exist_ok=True)
    for name, svg in render(missing):
        files.write_atomic(DIR / f"{name}.svg", svg + "\n")
        print(f"[diagrams] drew {(DIR / f'{name}.svg').relative_to(ROOT)} ({fences[name]['page']})")
    for old in stale:
        old.unlink()
        print(f"[diagrams] deleted unused {old.relative_to(ROOT)}")
    print(f"[diagrams] {len(fences)} diagram(s): {len(missing)} drawn, {len(stale)} deleted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
