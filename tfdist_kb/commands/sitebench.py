"""The site's figures for `make bench` (`tfdist bench`): strict build time, the search index of each
language, what an entry page transfers in each language, and Lighthouse on every entry page.
Figures only; nothing here asserts a score or a time, and the report exits 0.

The site is served as a host would serve it (gzip for text, `_Handler`). Targets (issue 21):
Lighthouse mobile, with its default (simulated) throttling, performance >= 95 and accessibility 100
on every published entry page in both languages (`e/TFDnnn/`, `zh/e/TFDnnn/`); the pages below
target are listed with the audits that cost them points. Every entry page is measured on desktop
too (`--preset=desktop`), held to the same figures.
"""
from __future__ import annotations

import gzip
import http.server
import json
import mimetypes
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..site import compress, i18n, registry, search_index

ROOT = registry.ROOT
ENTRY = "e/TFD001/"  # the page whose transfer is itemised (per language)
FORMS = ("mobile", "desktop")  # Lighthouse's form factors, each with its default throttling
TARGET = {"performance": 95, "accessibility": 100}  # Lighthouse mobile, every entry page, both languages
JS = Path(__file__).resolve().parents[1] / "site" / "js"
LIGHTHOUSE = JS / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HEADLESS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]


class _Handler(http.server.SimpleHTTPRequestHandler):
    """A static server as one would deploy the site: gzip for text, long cache for hashed assets."""

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                self.send_response(301)
                self.send_header("Location", self.path.split("?")[0] + "/")
                self.end_headers()
                return
            path = path / "index.html"
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        body, headers = compress.compress(body, kind, self.headers.get("Accept-Encoding", ""))
        for name, value in headers:
            self.send_header(name, value)
        hashed = "/assets/" in self.path and any(part.count(".") >= 2 for part in self.path.split("/")[-1:])
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if hashed else "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             lambda *a, **k: _Handler(*a, directory=str(site), **k))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def build(site: Path) -> float:
    """Seconds for `mkdocs build --strict` into an empty folder (the notebook cache as it is)."""
    shutil.rmtree(site, ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the strict build failed:\n{done.stderr[-2000:]}")
    return seconds


def transfer(url: str) -> list[tuple[str, int]]:
    """(URL, bytes on the wire) for every response the page loads until the network is idle (not its
    search index, which it asks for when the reader turns to the search: tfdist-search.js); bodies as
    the gzip server above sends them."""
    from playwright.sync_api import sync_playwright

    seen: dict[str, int] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=HEADLESS[1:])
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()

            def finished(request):
                sizes = request.sizes()
                seen[request.url] = sizes["responseBodySize"] + sizes["responseHeadersSize"]
            page.on("requestfinished", finished)
            context.on("requestfinished", finished)  # service/dedicated workers, where reported
            page.goto(url, wait_until="networkidle")
            page.wait_for_timeout(1500)  # the search worker's index
        finally:
            browser.close()
    return sorted(seen.items(), key=lambda item: -item[1])


def entry_pages() -> list[tuple[str, str]]:
    """(entry ID, page path) of every published entry in every language: `e/TFDnnn/`, `zh/e/TFDnnn/`."""
    published = [entry for entry in registry.load().values() if entry.status == "published"]
    return [(entry.id, search_index.prefix(lang) + entry.url) for entry in sorted(published, key=lambda e: e.id)
            for lang in i18n.LANGUAGES]


def lighthouse(url: str, desktop: bool) -> dict:
    if not LIGHTHOUSE.is_file():
        raise RuntimeError(f"{LIGHTHOUSE.relative_to(ROOT)} is missing: run `make setup` (npm ci in tfdist_kb/site/js)")
    with tempfile.TemporaryDirectory(prefix="tfdist-lighthouse-") as profile:
        command = ["node", str(LIGHTHOUSE), url, "--quiet", "--output=json", "--output-path=stdout",
                   "--only-categories=performance,accessibility,best-practices",
                   "--chrome-flags=" + " ".join(HEADLESS + [f"--user-data-dir={profile}"])]
        if desktop:
            command.append("--preset=desktop")
        done = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, CHROME_PATH=CHROMIUM))
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def _losses(report: dict, category: str) -> str:
    """The audits that cost points in `category`, worst first."""
    audits = report["audits"]
    lost = [(ref["weight"] * (1 - audits[ref["id"]]["score"]), ref["id"], audits[ref["id"]].get("displayValue"))
            for ref in report["categories"][category]["auditRefs"]
            if ref["weight"] and audits[ref["id"]].get("score") is not None and audits[ref["id"]]["score"] < 1]
    return ", ".join(f"{name}" + (f" ({value})" if value else "") for _, name, value in sorted(lost, reverse=True))


def _transfer_figures(base: str, lang: str) -> None:
    path = search_index.prefix(lang) + ENTRY
    loaded = transfer(base + path)
    total = sum(size for _, size in loaded)
    print(f"site: /{path} transfers {total / 1024:.0f} KB in {len(loaded)} responses, gzip-compressed; largest:",
          flush=True)
    for url, size in loaded[:8]:
        print(f"        {size / 1024:6.1f} KB  {url[len(base) - 1:]}")


def _median(values: list[int]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _lighthouse_figures(base: str) -> None:
    """Lighthouse on every entry page in every language, mobile and desktop (each with Lighthouse's own
    throttling for it), one row per entry as it comes; then, per language and form factor, the lowest
    and median scores and how many pages are below target, and the pages below target with what costs
    them points. The targets are the mobile ones; desktop is held to the same figures."""
    if not LIGHTHOUSE.is_file():
        print(f"site: {LIGHTHOUSE.relative_to(ROOT)} is missing: run `make setup` (npm ci in tfdist_kb/site/js)")
        return
    categories = ("performance", "accessibility", "best-practices")
    pages = entry_pages()
    print(f"lighthouse, {len(pages)} entry pages, mobile (default simulated throttling) and desktop (--preset=desktop) "
          f"(targets: performance >= {TARGET['performance']}, accessibility {TARGET['accessibility']}); "
          f"perf / a11y / best-practices:", flush=True)
    print(f"  {'entry':8}" + "".join(f"{lang + ' ' + form:>15}" for lang in i18n.LANGUAGES for form in FORMS))
    scores: dict[tuple[str, str], dict] = {}  # (page path, form factor) -> {category: score}
    below: list[tuple[str, str, dict, dict]] = []
    failed: list[tuple[str, str, str]] = []
    for entry in dict.fromkeys(entry for entry, _ in pages):
        cells = []
        for path in (p for e, p in pages if e == entry):
            for form in FORMS:
                try:
                    result = lighthouse(base + path, desktop=form == "desktop")
                except RuntimeError as error:
                    failed.append((path, form, str(error).splitlines()[0]))
                    cells.append(f"{'failed':>15}")
                    continue
                got = {name: round(result["categories"][name]["score"] * 100) for name in categories}
                scores[path, form] = got
                cells.append(f"{got['performance']:>7} {got['accessibility']:>3} {got['best-practices']:>3}")
                if any(got[name] < target for name, target in TARGET.items()):
                    below.append((path, form, got, {name: _losses(result, name) for name, target in TARGET.items()
                                                    if got[name] < target}))
        print(f"  {entry:8}" + "".join(cells), flush=True)
    for lang in i18n.LANGUAGES:
        for form in FORMS:
            mine = [got for (path, f), got in scores.items()
                    if f == form and path.startswith(search_index.prefix(lang) + "e/")]
            if not mine:
                continue
            figures = []
            for name, target in TARGET.items():
                values = [got[name] for got in mine]
                figures.append(f"{name} min {min(values)}, median {_median(values):g}, "
                               f"{sum(value < target for value in values)} below {target}")
            print(f"  {lang} {form}: {len(mine)} pages; " + "; ".join(figures))
    for path, form, got, losses in below:
        for name, lost in losses.items():
            print(f"  below target: /{path} ({form}) {name} {got[name]}: {lost}")
    for path, form, reason in failed:
        print(f"  not measured: /{path} ({form}): {reason}")


def report(site: Path | None = None, rebuild: bool = True) -> int:
    own = site is None
    site = site or Path(tempfile.mkdtemp(prefix="tfdist-bench-site-"))
    try:
        if rebuild:
            seconds = build(site)
            print(f"site: strict build into an empty folder: {seconds:.1f} s ({os.cpu_count()} cores)", flush=True)
        for lang in i18n.LANGUAGES:  # one index per language (tfdist_kb.site.search_index): a page loads its own
            raw = (site / search_index.prefix(lang) / "search" / "search_index.json").read_bytes()
            print(f"site: search index ({lang}) {len(raw) / 1024:.0f} KB, {len(gzip.compress(raw, 6)) / 1024:.0f} KB "
                  f"gzip-compressed, downloaded when the reader turns to the search", flush=True)
        server, base = serve(site)
        try:
            for lang in i18n.LANGUAGES:
                _transfer_figures(base, lang)
            _lighthouse_figures(base)
        finally:
            server.shutdown()
    finally:
        if own:
            shutil.rmtree(site, ignore_errors=True)
    return 0


if __name__ == "__main__":
    # python -m tfdist_kb.commands.sitebench [SITE_DIR [--no-build]]: measure a site already built there
    sys.exit(report(Path(sys.argv[1]) if len(sys.argv) > 1 else None, rebuild="--no-build" not in sys.argv))
