"""Offline and private (issue 8, item 5): no built page or asset would fetch anything from another
host, in the normal build and in the offline variant (TFDIST_OFFLINE=true, `make site` writes it to
site-offline/), which also works from file:// with search, ranking IDs and pastes as the online
build does, searching however text arrives and opening a pasted error's page unmarked (issue 21).
Diagrams are inline SVG, so no page asks a CDN for mermaid.

Links a reader follows (<a href>, rel=canonical/alternate) may point anywhere: only what a browser
loads by itself counts (scripts, stylesheets, preloads, icons, manifests, images, frames, media,
srcset, CSS url() and @import, SVG references)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from test_browser import (ARRIVALS, ENTRIES, LANGS, Tab, _expected, _real_pastes, arrival_cases, check_arrivals,
                          check_pasted_marks, page_of)
from tfdist_kb.site import registry

ROOT = registry.ROOT

# <link rel=...> values whose href the browser fetches (or connects to) by itself.
FETCHING_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "prerender", "preconnect", "dns-prefetch",
                 "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon", "manifest"}
# tag -> attributes whose URL the browser loads by itself
LOADING = {"script": ["src"], "img": ["src", "srcset"], "iframe": ["src"], "frame": ["src"], "embed": ["src"],
           "source": ["src", "srcset"], "audio": ["src"], "video": ["src", "poster"], "track": ["src"],
           "object": ["data"], "input": ["src"], "image": ["href", "xlink:href"], "use": ["href", "xlink:href"],
           "feimage": ["href", "xlink:href"]}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.I | re.S)


def external(url: str) -> bool:
    """True for a URL on another host: http(s), ws(s), ftp or protocol-relative `//host`."""
    url = url.strip()
    if url.startswith("//"):
        return True
    return urlsplit(url).scheme.lower() in {"http", "https", "ws", "wss", "ftp"}


def srcset_urls(value: str) -> list[str]:
    return [candidate.strip().split()[0] for candidate in value.split(",") if candidate.strip()]


def css_urls(text: str) -> list[str]:
    return [m.group(2) or m.group(4) for m in CSS_URL.finditer(text)]


class _Fetches(HTMLParser):
    """Collects (where, URL) for everything a page would load by itself."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self.mermaid_fences = 0
        self.repository_widgets = 0
        self._style = False

    def handle_starttag(self, tag, attrs):
        attrs = {k.lower(): (v or "") for k, v in attrs}
        if tag == "link":
            rels = set(attrs.get("rel", "").lower().split())
            if rels & FETCHING_RELS:
                self.found.append((f"<link rel={attrs.get('rel')}>", attrs.get("href", "")))
                for url in srcset_urls(attrs.get("imagesrcset", "")):
                    self.found.append(("<link imagesrcset>", url))
        for name in LOADING.get(tag, []):
            if name in attrs:
                urls = srcset_urls(attrs[name]) if name.endswith("srcset") else [attrs[name]]
                self.found += [(f"<{tag} {name}>", url) for url in urls]
        if "style" in attrs:
            self.found += [(f"<{tag} style>", url) for url in css_urls(attrs["style"])]
        if tag == "style":
            self._style = True
        classes = attrs.get("class", "").split()
        # Material replaces a `mermaid` block by a diagram drawn with mermaid from a CDN
        if "mermaid" in classes:
            self.mermaid_fences += 1
        # the repository widget asks the GitHub API for stars and forks
        if attrs.get("data-md-component") == "source":
            self.repository_widgets += 1

    def handle_endtag(self, tag):
        if tag == "style":
            self._style = False

    def handle_data(self, data):
        if self._style:
            self.found += [("<style>", url) for url in css_urls(data)]


def scan(site: Path) -> tuple[list[str], dict[str, int]]:
    """Every fetch from another host that a built file would make, and counts of the other checks."""
    problems, counts = [], {"pages": 0, "stylesheets": 0, "diagrams": 0}
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site)
        if path.suffix == ".html":
            parser = _Fetches()
            text = path.read_text(encoding="utf-8")
            parser.feed(text)
            counts["pages"] += 1
            counts["diagrams"] += text.count('class="tfd-diagram"')
            problems += [f"{rel}: {where} {url}" for where, url in parser.found if external(url)]
            if parser.mermaid_fences:
                problems.append(f"{rel}: {parser.mermaid_fences} element(s) of class `mermaid` (Material would load "
                                f"mermaid from a CDN): is the superfences custom fence in mkdocs.yml?")
            if parser.repository_widgets:
                problems.append(f"{rel}: a repository widget (data-md-component=source) calls a code host's API")
        elif path.suffix == ".css":
            counts["stylesheets"] += 1
            problems += [f"{rel}: CSS {url}" for url in css_urls(path.read_text(encoding="utf-8")) if external(url)]
        elif path.suffix == ".svg":
            parser = _Fetches()
            parser.feed(path.read_text(encoding="utf-8"))
            problems += [f"{rel}: {where} {url}" for where, url in parser.found if external(url)]
    return problems, counts


@pytest.fixture(scope="session")
def offline_site(tmp_path_factory):
    """The offline variant as `make site` builds it into site-offline/ (strict)."""
    out = tmp_path_factory.mktemp("site-offline")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, TFDIST_OFFLINE="true"))
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def test_the_scan_sees_what_a_browser_would_fetch():
    page = """<html><head><link rel="stylesheet" href="https://cdn.example/x.css">
    <link rel="canonical" href="https://example.org/e/TFD001/"><link rel="preload" as="font" href="//fonts.example/f.woff2">
    <style>@import url("https://fonts.example/css"); .a { background: url(data:image/png;base64,AA==) }</style>
    <script src="https://unpkg.com/mermaid"></script></head><body>
    <a href="https://github.com/keras-team/keras/issues/1">fine</a><img srcset="a.png 1x, https://img.example/b.png 2x">
    <div style="background-image: url('http://img.example/c.png')"></div><svg><image href="https://img.example/d.svg"/></svg>
    <pre class="mermaid"><code>flowchart LR</code></pre><iframe src="../local.html"></iframe></body></html>"""
    parser = _Fetches()
    parser.feed(page)
    assert sorted(url for _, url in parser.found if external(url)) == [
        "//fonts.example/f.woff2", "http://img.example/c.png", "https://cdn.example/x.css", "https://fonts.example/css",
        "https://img.example/b.png", "https://img.example/d.svg", "https://unpkg.com/mermaid"]
    assert parser.mermaid_fences == 1


@pytest.mark.parametrize("build", ["site", "offline_site"])
def test_no_page_or_asset_fetches_from_another_host(build, request):
    site = request.getfixturevalue(build)
    problems, counts = scan(site)
    assert counts["pages"] > 10 and counts["stylesheets"] >= 2
    assert not problems, f"{len(problems)} fetch(es) from another host:\n" + "\n".join(problems[:30])


def test_diagrams_are_inline_svg_with_a_name(site):
    """A ```mermaid fence becomes the SVG `make diagrams` drew, with its accTitle as accessible name."""
    pages = [p for p in site.rglob("*.html") if 'class="tfd-diagram"' in p.read_text(encoding="utf-8")]
    if not pages:
        pytest.skip("no page has a mermaid diagram")
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for figure in re.findall(r'<figure class="tfd-diagram".*?</figure>', text, re.S):
            assert "<svg" in figure and "<title" in figure and "aria-labelledby=" in figure, page
            assert "<script" not in figure.lower() and "foreignObject" not in figure, page


def test_offline_variant_is_self_contained(offline_site, site):
    # non-directory URLs there (file:// has no index.html lookup); the normal build keeps /e/TFD001/
    assert (offline_site / "e" / "TFD001.html").is_file() and (offline_site / "zh" / "e" / "TFD001.html").is_file()
    assert (site / "e" / "TFD001" / "index.html").is_file() and not (site / "e" / "TFD001.html").exists()
    # search without a server: the index inlined as a script, the worker run in an iframe by the local shim
    assert (offline_site / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var __index =")
    shim = "assets/javascripts/iframe-worker-shim.js"
    assert (offline_site / shim).is_file(), "run `make setup` (npm ci in tfdist_kb/site/js)"
    page = (offline_site / "e" / "TFD001.html").read_text(encoding="utf-8")
    assert f'src="../{shim}"' in page and "iframe-worker" not in page.replace(shim, "")
    assert not (site / shim).exists() and shim not in (site / "e" / "TFD001" / "index.html").read_text(encoding="utf-8")
    # the search box's signatures name each build's own pages
    signatures = "assets/tfdist/signatures.js"
    assert '"path": "e/TFD001.html"' in (offline_site / signatures).read_text(encoding="utf-8")
    assert '"path": "e/TFD001/"' in (site / signatures).read_text(encoding="utf-8")


def test_offline_variant_searches_from_file_urls(offline_site, browser):
    """Opened from disk in Chromium (conftest's `browser`): search answers, and no request goes
    anywhere but the disk."""
    requests, problems = [], []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.goto((offline_site / "e" / "TFD001.html").as_uri(), wait_until="load")
        box = page.locator("input.md-search__input")
        initial = page.inner_text(".md-search-result__meta")  # "Initializing search", in the page's language
        box.click()
        # the worker (here: an iframe) has loaded the index when the open search box says so
        page.wait_for_function("text => document.querySelector('.md-search-result__meta').innerText !== text",
                               arg=initial, timeout=20_000)
        box.press_sequentially("MirroredStrategy", delay=20)
        page.wait_for_selector(".md-search-result__item", timeout=20_000)
        hrefs = [a.get_attribute("href") for a in page.locator(".md-search-result__link").all()]
        # a result opens from disk too
        target = next(h for h in hrefs if "/e/TFD" in h)
        page.goto(target, wait_until="load")
        assert page.title() and page.locator("article h1").count() == 1
    finally:
        context.close()
    assert hrefs and all(h.startswith("file://") for h in hrefs), hrefs
    assert not problems, problems
    elsewhere = [u for u in requests if not u.startswith(("file:", "data:", "blob:", "about:"))]
    assert not elsewhere, elsewhere


# ---------------------------------------------------------------- the offline build searches as the online one

HOMES = {"online": {"en": "/", "zh": "/zh/"}, "offline": {"en": "/index.html", "zh": "/zh/index.html"}}
TOP = 5  # the pages compared, best first


@pytest.fixture(scope="module")
def builds(browser, served_site, offline_site):
    """{"online": a Tab over http, "offline": a Tab on the offline build's files (file://)}."""
    out = {}
    for name, base in (("online", served_site), ("offline", offline_site.as_uri())):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        out[name] = Tab(context, base)
    yield out
    for tab in out.values():
        tab.context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_offline_variant_ranks_as_online_does(builds, offline_site, lang):
    """Every entry ID (typed) and every real paste labelled an entry (tests/corpus/real_errors.jsonl,
    pasted): from file:// the offline build lists the pages the online build lists over http, in the
    same order (the first 5), the first being the entry `tfdist explain` names. (Its signature data
    once named e/TFD010/ where its pages are e/TFD010.html: IDs 0 of 22 first, pastes 51 of 103.)"""
    index = json.loads((offline_site / "errors.json").read_text())
    cases = [(e, False, {e}) for e in ENTRIES]
    cases += [(p["error_text"], True, _expected(p["error_text"], index, p["label"])) for p in _real_pastes()]
    found = {}
    for name, tab in builds.items():
        tab.reset().page.goto(tab.base + HOMES[name][lang])
        root = urlsplit(tab.base).path
        found[name] = [[page_of(path, root) for path in dict.fromkeys(tab.search(query, paste=paste))][:TOP]
                       for query, paste, _ in cases]
        assert not tab.errors, f"{name}: {tab.errors}"
    problems = []
    for (query, _, expected), online, offline in zip(cases, found["online"], found["offline"]):
        wanted = {f"{LANGS[lang]}/e/{e}" for e in expected}
        if offline != online or not set(offline[:1]) & wanted:
            problems.append(f"{query[:80]!r}: offline {offline}, online {online}, expected {sorted(wanted)} first")
    assert not problems, f"{len(problems)} of {len(cases)} searches differ:\n" + "\n".join(problems)


@pytest.mark.parametrize("how", ARRIVALS)
@pytest.mark.parametrize("lang", LANGS)
def test_offline_search_runs_however_text_arrives(builds, offline_site, lang, how):
    """As online (test_browser.py::test_search_runs_however_text_arrives), from file://."""
    index = json.loads((offline_site / "errors.json").read_text())
    tab = builds["offline"].reset()
    problems = check_arrivals(tab, HOMES["offline"][lang], lang, arrival_cases(index, lang, how), how)
    assert not problems, "\n".join(problems)
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("lang", LANGS)
def test_offline_pasted_error_marks_nothing_on_its_page(builds, offline_site, lang):
    """As online (test_browser.py::test_a_pasted_error_marks_nothing_on_its_page), from file://: the
    paste's entry first, no result link asking for a highlight, no "Missing:", its page unmarked."""
    index = json.loads((offline_site / "errors.json").read_text())
    tab = builds["offline"].reset()
    problems = check_pasted_marks(tab, HOMES["offline"][lang], lang, index)
    assert not problems, "\n".join(problems)
    assert not tab.errors, tab.errors
