"""`make pdf`: the whole knowledge base as one PDF per language.

For each language the site is built once more, with that language printed on one page by
mkdocs-print-site-plugin (a config derived from mkdocs.yml in memory; static-i18n writes the print
page of the last language built only, so each language gets a build of its own). Debian's
Chromium, driven by Playwright, opens that page, prepares it for paper and prints it twice: the
first print tells on which page every heading landed, the second carries those page numbers in the
table of contents.

Prepared for paper: every <details> opened (folded sources and whole messages print), every tab
of a tab set printed under its label, the messages behind table cells as notes, tables and code
blocks wrapped or shrunk to the page width, each entry's ID and permanent address under its title,
every link either a jump inside the PDF or an address on the site (tfdist_kb.site.errors.base_url()),
Simplified Chinese set in Noto Sans/Serif CJK SC. The PDF has a cover, a table of contents with
page numbers, an outline (bookmarks), page numbers and tags.

    python -m tfdist_kb.site.pdf [--out DIR] [--lang en|zh ...]

writes DIR/tfdist-kb-en.pdf, DIR/tfdist-kb-zh.pdf and DIR/tfdist-kb-pdf.json (what was printed:
pages, entries and their pages, links, fonts, seconds).
"""
from __future__ import annotations

import argparse
import copy
import functools
import http.server
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import errors, registry
from ..proof import files

ROOT = registry.ROOT
OUT = ROOT / "site-print"
LANGUAGES = ("en", "zh")
REPORT = "tfdist-kb-pdf.json"
PRINT_CSS = "stylesheets/print.css"  # docs/stylesheets/print.css: the rules for paper

CHROMIUM = os.environ.get("TFDIST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic",
                 # the print page needs nothing but the local server
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]

# A4 with these margins (the same in docs/stylesheets/print.css); the window is as wide as the
# printable area, so what is measured on screen is what is printed.
PAPER = {"format": "A4"}
MARGIN_MM = {"top": 14, "bottom": 16, "left": 14, "right": 14}
PRINTABLE_PX = round((210 - MARGIN_MM["left"] - MARGIN_MM["right"]) / 25.4 * 96)

# Words of the PDF's own furniture (the pages' words come from the pages and tfdist_kb.site.i18n).
WORDS = {
    "en": {"contents": "Contents", "address": "On the web", "notes": "Messages behind the cells of this table"},
    "zh": {"contents": "目录", "address": "网址", "notes": "本表各单元格背后的信息"},
}
# The families that carry the Simplified Chinese glyph forms (Debian fonts-noto-cjk).
CJK_SC = ("Noto Sans CJK SC", "Noto Serif CJK SC", "Noto Sans Mono CJK SC")


def pdf_name(lang: str) -> str:
    return f"tfdist-kb-{lang}.pdf"


def site_address(lang: str) -> str:
    """The address of the language's home on the web: base_url(), plus `zh/` for Chinese."""
    return errors.base_url() + ("" if lang == "en" else f"{lang}/")


def entry_address(entry_id: str, lang: str) -> str:
    return site_address(lang) + registry.load()[entry_id].url


# --- the print page: one build per language ------------------------------------------------------

def _raw_config() -> dict:
    import yaml
    from mkdocs.utils.yaml import get_yaml_loader

    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=get_yaml_loader())


def plugins_for(lang: str, cover: Path) -> list:
    """mkdocs.yml's plugins with only what `lang` needs built (static-i18n builds its default
    language first in any case; the print page holds the last one) and print-site added last."""
    plugins = copy.deepcopy(_raw_config()["plugins"])
    for plugin in plugins:
        if isinstance(plugin, dict) and "i18n" in plugin:
            languages = plugin["i18n"]["languages"]
            default = next(item["locale"] for item in languages if item.get("default"))
            if lang not in [item["locale"] for item in languages]:
                raise ValueError(f"mkdocs.yml has no language {lang!r}")
            for item in languages:
                item["build"] = item["locale"] in (lang, default)
            # the language printed must be built last
            languages.sort(key=lambda item: item["locale"] == lang and not item.get("default"))
        if isinstance(plugin, dict) and "mkdocs-jupyter" in plugin:
            # The languages are built at the same time, and mkdocs-jupyter deletes, after a build,
            # every file of its cache that this build did not use: one cache per language.
            plugin["mkdocs-jupyter"]["cache_dir"] = f".cache/mkdocs-jupyter-print-{lang}"
    plugins.append({"print-site": {
        "add_cover_page": True,
        "cover_page_template": str(cover),
        "add_table_of_contents": True,
        "toc_title": WORDS[lang]["contents"],
        "toc_depth": 2,
        "add_full_urls": True,
        "enumerate_headings": False,
        "enumerate_figures": False,
        "add_print_site_banner": False,
        "add_to_navigation": False,
    }})
    return plugins


COVER = """<div class="tfd-pdf-cover">
<h1>{{{{ config.site_name }}}}</h1>
<p class="tfd-pdf-cover-description">{{{{ config.site_description }}}}</p>
<p class="tfd-pdf-cover-address">{address}: <a href="{url}">{url}</a></p>
</div>
"""


def _build_site_here(lang: str, site_dir: Path, cover: Path, strict: bool = True) -> None:
    """The build itself (run in a fresh interpreter by build_site: plugins and macros keep state)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    logging.basicConfig(level=logging.WARNING, format="%(levelname)-7s -  %(message)s")
    extra_css = list(_raw_config().get("extra_css", []))
    if PRINT_CSS not in extra_css:
        extra_css.append(PRINT_CSS)
    config = load_config(str(ROOT / "mkdocs.yml"), plugins=plugins_for(lang, cover), extra_css=extra_css,
                         site_dir=str(site_dir), strict=strict)
    build(config)


def build_site(lang: str, site_dir: Path, strict: bool = True) -> Path:
    """Build the site with `lang`'s print page (site_dir/print_page/) in a fresh interpreter."""
    cover = site_dir.parent / f"cover-{lang}.tpl"
    url = site_address(lang)
    cover.write_text(COVER.format(address=WORDS[lang]["address"], url=url), encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    run = subprocess.run([sys.executable, "-m", "tfdist_kb.site.pdf", "--build-site", lang, str(site_dir), str(cover)]
                         + ([] if strict else ["--no-strict"]),
                         cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode != 0 or not (site_dir / "print_page" / "index.html").exists():
        raise RuntimeError(f"the {lang} print site did not build:\n{run.stderr[-6000:]}")
    return site_dir


# --- preparing the page for paper, in the browser -------------------------------------------------

PREPARE = r"""
({lang, words, entries, pages, base}) => {
  const root = document.getElementById("print-site-page");
  const report = {broken: [], external: 0, internal: 0, details: 0, tabs: 0, notes: 0, entries: {}};
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : lang;
  document.documentElement.classList.add("tfd-pdf");
  document.title = document.querySelector("#print-site-cover-page h1")?.textContent.trim() || document.title;

  // Code lines' own anchors (pymdownx.highlight anchor_linenums) mean nothing on paper.
  for (const a of root.querySelectorAll("a[id^='__codelineno'], a[href^='#__codelineno']")) a.remove();
  // A code line too long for the page wraps under its own indentation, 4 columns further in (print.css):
  // each line's span carries its indentation and keeps it with its first character (codelines.py).

  // Folded blocks print open: sources, whole messages, the messages behind table cells.
  for (const d of root.querySelectorAll("details")) { d.open = true; report.details++; }

  // Every tab of a tab set prints, under its own label.
  for (const set of root.querySelectorAll(".tabbed-set")) {
    const labels = [...set.querySelectorAll(":scope > .tabbed-labels > label")];
    const blocks = [...set.querySelectorAll(":scope > .tabbed-content > .tabbed-block")];
    blocks.forEach((block, i) => {
      const p = document.createElement("p");
      p.className = "tfd-pdf-tab";
      p.textContent = labels[i] ? labels[i].textContent.trim() : "";
      block.prepend(p);
      report.tabs++;
    });
  }

  // Hover-only tips in tables become numbered notes under the table.
  for (const table of root.querySelectorAll("table")) {
    const notes = [];
    for (const el of table.querySelectorAll("td [title], th [title], td[title], th[title]")) {
      const tip = el.getAttribute("title").trim();
      if (!tip) continue;
      let n = notes.indexOf(tip);
      if (n < 0) { notes.push(tip); n = notes.length - 1; }
      const sup = document.createElement("sup");
      sup.className = "tfd-pdf-noteref";
      sup.textContent = String(n + 1);
      el.after(sup);
    }
    if (!notes.length) continue;
    const list = document.createElement("ol");
    list.className = "tfd-pdf-notes";
    list.setAttribute("aria-label", words.notes);
    for (const tip of notes) { const li = document.createElement("li"); li.textContent = tip; list.append(li); }
    const wrap = table.closest(".md-typeset__scrollwrap") || table;
    wrap.after(list);
    report.notes += notes.length;
  }

  // Each entry: its ID in its heading (so in its bookmark), and its permanent address on its first
  // page, under the title.
  for (const [key, e] of Object.entries(entries)) {
    const section = document.getElementById(key);
    if (!section) continue;
    const heading = section.querySelector("h1");
    if (heading && !heading.querySelector(".tfd-pdf-id")) {
      const id = document.createElement("span");
      id.className = "tfd-pdf-id";
      id.textContent = `${e.id} · `;
      heading.prepend(id);
    }
    // (the first paragraph of Chinese prose in an entry: which font draws it is checked)
    const cjk = [...section.querySelectorAll("p")].find((p) => /[\u4e00-\u9fff]/.test(p.textContent));
    if (cjk && !document.querySelector("[data-tfd-pdf-cjk]")) cjk.setAttribute("data-tfd-pdf-cjk", "");
    const a = document.createElement("a");
    a.href = e.url;
    a.textContent = e.url;
    a.className = "tfd-pdf-bare";
    // the badge under the title names the address relative to the site: make it the whole address
    const badge = section.querySelector(".tfd-id");
    const relative = badge && [...badge.querySelectorAll("code")].find(c => c.textContent.trim().endsWith(`/${e.id}/`));
    if (relative) {
      relative.replaceWith(a);
    } else {
      const p = document.createElement("p");
      p.className = "tfd-pdf-address";
      const strong = document.createElement("strong");
      strong.textContent = e.id;
      p.append(strong, " · ", a);
      (badge || section.querySelector("h1")).after(p);
    }
    report.entries[e.id] = key;
  }

  // Links: a jump inside the PDF where the target is printed, else the address on the site.
  const here = new URL(location.href);
  const sitePath = new URL(base).pathname;   // the print page is served under the site's own path
  const siteUrl = (path) => base + (path.startsWith(sitePath) ? path.slice(sitePath.length) : path.replace(/^\/+/, ""));
  const pageOf = (anchor) => {            // '#zh-e-tfd001-fix' -> ['zh/e/TFD001/', 'fix']
    let best = null;
    for (const [key, url] of Object.entries(pages)) {
      if ((anchor === key || anchor.startsWith(key + "-")) && (!best || key.length > best[0].length)) best = [key, url];
    }
    if (!best) return null;
    return [best[1], anchor.slice(best[0].length + 1)];
  };
  for (const a of document.querySelectorAll("#print-site-page a[href], #print-page-toc a[href]")) {
    const href = a.getAttribute("href");
    if (!href || /^(mailto|tel):/.test(href)) continue;
    if (href.startsWith("#")) {
      const id = decodeURIComponent(href.slice(1));
      if (id === "" || document.getElementById(id)) { report.internal++; continue; }
      const found = pageOf(id);
      if (found) { a.href = siteUrl(found[0]) + (found[1] ? "#" + found[1] : ""); report.external++; }
      else report.broken.push(href);
      continue;
    }
    const url = new URL(href, here);
    if (url.origin === here.origin) { a.href = siteUrl(url.pathname) + url.hash; }
    report.external++;
    if (a.textContent.trim().replace(/\/$/, "") === a.href.replace(/\/$/, "")) a.classList.add("tfd-pdf-bare");
  }

  // The table of contents: a place for each page number (filled after the first print).
  for (const a of document.querySelectorAll("#print-page-toc a[href^='#']")) {
    const span = document.createElement("span");
    span.className = "tfd-pdf-pageno";
    span.textContent = "000";
    a.append(span);
  }
  // Names of link targets: Chromium names each destination by its id, percent-encoded; a Chinese
  // heading's id runs past the 127 bytes a PDF name may have, so a long one becomes a short one.
  const encoded = (id) => encodeURIComponent(id).length;
  let renamed = 0;
  for (const el of document.querySelectorAll("[id]")) {
    if (encoded(el.id) <= 100) continue;
    const old = "#" + el.id, short = "tfd-n" + (++renamed);
    for (const a of document.querySelectorAll("a[href]")) {
      if (a.getAttribute("href") === old || decodeURIComponent(a.getAttribute("href")) === old) a.setAttribute("href", "#" + short);
    }
    el.id = short;
  }
  report.renamed = renamed;
  return report;
}
"""

FIT = r"""
() => {
  // Tables and code blocks never run past the page: whatever is still wider than its column
  // after wrapping is scaled down to fit.
  const root = document.getElementById("print-site-page");
  const result = {shrunk: [], overflowing: []};
  const name = (el) => {
    const section = el.closest("section.print-page[id]");
    return (section ? section.id : "?") + " " + el.tagName.toLowerCase();
  };
  const wide = (el) => el.scrollWidth > el.clientWidth + 1
    || el.getBoundingClientRect().right > root.getBoundingClientRect().right + 1;
  // A long listing, admonition, fold, tab set or table row may continue on the next page (print-site and
  // Material keep each whole, which leaves most of a page blank before a long one); short ones
  // stay whole.
  const tall = (el) => [el, ...el.querySelectorAll("pre, table")].some(
    (x) => Math.max(x.getBoundingClientRect().height, x.scrollHeight) > 360);
  for (const el of root.querySelectorAll("pre, .admonition, details, .tabbed-set, blockquote, tr")) {
    if (tall(el)) el.style.breakInside = "auto";
  }
  for (const el of root.querySelectorAll("table, pre, .highlight, .md-typeset__scrollwrap")) {
    if (!wide(el)) continue;
    const box = el.parentElement.getBoundingClientRect();
    let zoom = Math.max(0.45, Math.min(1, (box.width - 2) / Math.max(el.scrollWidth, 1)));
    el.style.zoom = zoom.toFixed(3);
    while (wide(el) && zoom > 0.45) { zoom -= 0.05; el.style.zoom = zoom.toFixed(3); }
    result.shrunk.push(name(el) + " x" + zoom.toFixed(2));
    if (wide(el)) result.overflowing.push(name(el));
  }
  return result;
}
"""

PAGE_NUMBERS = r"""
(pages) => {
  let missing = [];
  for (const a of document.querySelectorAll("#print-page-toc a[href^='#']")) {
    const id = decodeURIComponent(a.getAttribute("href").slice(1));
    const span = a.querySelector(".tfd-pdf-pageno");
    if (pages[id] === undefined) { missing.push(id); span.textContent = ""; continue; }
    span.textContent = String(pages[id]);
    span.classList.add("tfd-pdf-pageno-set");
  }
  return missing;
}
"""


def _footer(lang: str, title: str) -> str:
    font = "'Noto Sans CJK SC', sans-serif" if lang == "zh" else "Helvetica, Arial, sans-serif"
    return (f'<div style="font-family:{font};font-size:9px;color:#555;width:100%;'
            f'margin:0 {MARGIN_MM["left"]}mm;display:flex;justify-content:space-between">'
            f'<span>{_escape(title)}</span>'
            '<span><span class="pageNumber"></span> / <span class="totalPages"></span></span></div>')


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def destinations(pdf: Path) -> dict[str, int]:
    """The PDF's named destinations (every heading and target a link jumps to) -> page number."""
    out = subprocess.run(["pdfinfo", "-dests", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = {}
    for line in out.splitlines():
        match = re.match(r'\s*(\d+)\s+\[.*\]\s+"(.*)"\s*$', line)
        if match:
            pages.setdefault(urllib.parse.unquote(match.group(2)), int(match.group(1)))
    return pages


def page_count(pdf: Path) -> int:
    out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.MULTILINE).group(1))


@dataclass
class Book:
    lang: str
    pdf: str
    pages: int = 0
    seconds: float = 0.0
    entries: dict = field(default_factory=dict)     # id -> {"url", "page"}
    toc: dict = field(default_factory=dict)         # anchor -> page
    links: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)
    fonts: dict = field(default_factory=dict)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    root = "/"  # the path of the site's address (site_url), where a real host serves it

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        return super().translate_path("/" + path[len(self.root):] if path.startswith(self.root) else path)


def _root() -> str:
    """The path of the published address ('/' or '/name/'): the print page is served there, as the host
    serves the site, so the theme's absolute paths (its search index) resolve."""
    return urllib.parse.urlsplit(errors.base_url()).path or "/"


def _serve(directory: Path) -> http.server.ThreadingHTTPServer:
    handler = type("_Served", (_Quiet,), {"root": _root()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _page_keys(site_dir: Path) -> dict[str, str]:
    """print-site's anchor for each page of the site (`zh-e-tfd001`) -> the page's path (`zh/e/TFD001/`)."""
    keys = {}
    for index in site_dir.rglob("index.html"):
        path = index.parent.relative_to(site_dir).as_posix()
        path = "" if path == "." else path + "/"
        keys[path.lower().strip("/").replace("/", "-") or "index"] = path
    return keys


def _fonts(page, selector: str) -> list[dict]:
    """The fonts Chromium really used for the text of the first element matching `selector`."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        document = cdp.send("DOM.getDocument", {"depth": -1})
        node = cdp.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": selector})["nodeId"]
        if not node:
            return []
        return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()


def print_book(browser, site_dir: Path, lang: str, pdf: Path) -> Book:
    start = time.monotonic()
    book = Book(lang=lang, pdf=pdf.name)
    entries = {e.id: e for e in registry.load().values() if e.status == "published"}
    prefix = "" if lang == "en" else f"{lang}-"
    wanted = {f"{prefix}e-{e.id.lower()}": {"id": e.id, "url": entry_address(e.id, lang)} for e in entries.values()}
    server = _serve(site_dir)
    draft = pdf.with_suffix(".draft.pdf")
    try:
        context = browser.new_context(viewport={"width": PRINTABLE_PX, "height": 1100},
                                      locale="zh-CN" if lang == "zh" else "en-US")
        page = context.new_page()
        problems = []
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"http://127.0.0.1:{server.server_port}{_root()}print_page/", wait_until="load")
        page.wait_for_function("document.querySelector('#print-page-toc nav ul') !== null", timeout=30_000)
        page.emulate_media(media="print")
        report = page.evaluate(PREPARE, {"lang": lang, "words": WORDS[lang], "entries": wanted,
                                         "pages": _page_keys(site_dir), "base": errors.base_url()})
        page.evaluate("document.fonts.ready.then(() => true)")
        book.fit = page.evaluate(FIT)
        book.links = {"internal": report["internal"], "to_site": report["external"], "broken": report["broken"],
                      "details_opened": report["details"], "tabs": report["tabs"], "notes": report["notes"],
                      "script_errors": problems}
        missing = sorted(set(entries) - set(report["entries"]))
        if missing:
            raise RuntimeError(f"{lang}: entries not on the print page: {', '.join(missing)}")
        if lang != "en":  # which fonts drew the Chinese: the cover's title, an entry's first paragraph
            book.fonts = {where: [f["familyName"] for f in _fonts(page, selector)] for where, selector in
                          {"cover": "#print-site-cover-page h1",
                           "entry": "[data-tfd-pdf-cjk]"}.items()}
        title = page.title()
        options = dict(PAPER, outline=True, tagged=True, print_background=True, display_header_footer=True,
                       header_template="<span></span>", footer_template=_footer(lang, title),
                       margin={k: f"{v}mm" for k, v in MARGIN_MM.items()})
        toc_ids = page.evaluate("[...document.querySelectorAll('#print-page-toc a[href^=\"#\"]')]"
                                ".map(a => decodeURIComponent(a.getAttribute('href').slice(1)))")
        # Print until the table of contents states the pages it lands on (the numbers fill spaces
        # kept for them, so the second print normally agrees with the first).
        for _ in range(3):
            page.pdf(path=str(draft), **options)
            dests = destinations(draft)
            toc = {i: dests[i] for i in toc_ids if i in dests}
            if toc == book.toc:
                break
            book.toc = toc
            page.evaluate(PAGE_NUMBERS, toc)
        else:
            raise RuntimeError(f"{lang}: the table of contents' page numbers did not settle")
        draft.replace(pdf)
        book.pages = page_count(pdf)
        book.entries = {wanted[key]["id"]: {"url": wanted[key]["url"], "page": dests.get(key)}
                        for key in report["entries"].values()}
        context.close()
    finally:
        server.shutdown()
        draft.unlink(missing_ok=True)
    book.seconds = round(time.monotonic() - start, 1)
    return book


# --- the whole run ---------------------------------------------------------------------------------

def build(out_dir: Path = OUT, languages=LANGUAGES, work: Path | None = None, strict: bool = True) -> list[Book]:
    """Build the print sites (in parallel), print one PDF per language, write the report."""
    from playwright.sync_api import sync_playwright

    out_dir.mkdir(parents=True, exist_ok=True)
    own_work = work is None
    work = Path(tempfile.mkdtemp(prefix="tfdist-pdf-")) if own_work else work
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=len(languages)) as pool:
            sites = dict(zip(languages, pool.map(lambda lang: build_site(lang, work / f"site-{lang}", strict),
                                                 languages)))
        built = time.monotonic() - started
        books = []
        with sync_playwright() as playwright:
            # (Playwright starts Chromium with a fresh profile of its own)
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for lang in languages:
                    books.append(print_book(browser, sites[lang], lang, out_dir / pdf_name(lang)))
            finally:
                browser.close()
        report = {"base_url": errors.base_url(), "build_seconds": round(built, 1),
                  "seconds": round(time.monotonic() - started, 1), "books": [asdict(b) for b in books]}
        files.write_atomic(out_dir / REPORT, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return books
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)


def check(book: Book) -> list[str]:
    """What would make a book unfit to hand out; empty when all is well."""
    problems = []
    if book.links.get("broken"):
        problems.append(f"links to nowhere: {book.links['broken'][:5]}")
    if book.links.get("script_errors"):
        problems.append(f"script errors on the print page: {book.links['script_errors'][:3]}")
    if book.fit.get("overflowing"):
        problems.append(f"still wider than the page: {book.fit['overflowing'][:5]}")
    if book.lang == "zh" and not all(any(f in CJK_SC for f in used) for used in book.fonts.values()):
        problems.append(f"Chinese not set in a Simplified Chinese font: {book.fonts}")
    return problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--build-site"]:
        _build_site_here(argv[1], Path(argv[2]), Path(argv[3]), strict="--no-strict" not in argv)
        return 0
    parser = argparse.ArgumentParser(prog="python -m tfdist_kb.site.pdf", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the PDFs (default {OUT.name}/)")
    parser.add_argument("--lang", action="append", choices=LANGUAGES, help="only this language (repeatable)")
    parser.add_argument("--work", type=Path, help="keep the print sites in this folder (default: a temporary one)")
    parser.add_argument("--no-strict", action="store_true",
                        help="print even if the site's build has warnings (a preview while pages are edited)")
    args = parser.parse_args(argv)
    books = build(args.out, tuple(args.lang or LANGUAGES), work=args.work, strict=not args.no_strict)
    failed = False
    for book in books:
        problems = check(book)
        failed |= bool(problems)
        print(f"{args.out / book.pdf}: {book.pages} pages, {len(book.entries)} entries, "
              f"{len(book.fit.get('shrunk', []))} blocks shrunk to fit, {book.seconds} s to print"
              + "".join(f"\n  problem: {p}" for p in problems))
    report = json.loads((args.out / REPORT).read_text())
    print(f"{report['seconds']} s in all ({report['build_seconds']} s building the print sites)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
