"""One published address everywhere, and the tfdist package offered by the site itself.

The site is built here as CI publishes it: TFDIST_BASE_URL and TFDIST_REPO_URL set (a published
address and a repository, both made up). Every link to a page of the site that a reader can take
away (errors.json, the notebooks, the sitemap, the canonical links, the wheel's own error index)
starts with that address, and the default one (what `make serve` serves) appears nowhere; the
header links to the repository; the wheel the pages link to installs with the one pip command the
pages give, from the site's folder alone, and its `tfdist explain` prints links to the published
address. The PDFs are checked against the same setting in tests/test_pdf.py.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.parse
import venv
import zipfile
from pathlib import Path

import pytest

from tfdist_kb.site import errors, registry, wheel

ROOT = registry.ROOT
PUBLISHED = "https://kb.example.org/tfdist-kb/"
REPOSITORY = "https://github.com/example/tfdist-kb"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("published")
    env = {**os.environ, errors.BASE_URL_VARIABLE: PUBLISHED, "TFDIST_REPO_URL": REPOSITORY}
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True, env=env)
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def _text_files(site: Path) -> list[Path]:
    return [p for p in site.rglob("*") if p.suffix in {".html", ".json", ".xml", ".ipynb", ".js", ".txt"}]


def test_the_default_address_is_nowhere_in_a_published_build(published):
    default = errors.default_base_url().rstrip("/")
    assert default != PUBLISHED.rstrip("/")
    found = [str(p.relative_to(published)) for p in _text_files(published)
             if default in p.read_text(encoding="utf-8", errors="replace")]
    assert not found, f"{len(found)} files still carry {default}: {found[:10]}"


def test_every_link_a_reader_takes_away_is_under_the_published_address(published):
    index = json.loads((published / "errors.json").read_text(encoding="utf-8"))
    assert index["base_url"] == PUBLISHED
    assert index["entries"] and all(e["url"].startswith(PUBLISHED) for e in index["entries"])
    sitemap = re.findall(r"<loc>([^<]+)</loc>", (published / "sitemap.xml").read_text(encoding="utf-8"))
    assert sitemap and all(loc.startswith(PUBLISHED) for loc in sitemap)
    pages = [p for p in published.rglob("index.html") if p.parent.name != wheel.FOLDER]
    canonical = [re.search(r'<link rel="canonical" href="([^"]+)"', p.read_text(encoding="utf-8")) for p in pages]
    assert all(c and c.group(1).startswith(PUBLISHED) for c in canonical), "every page's canonical link"
    notebooks = sorted(published.rglob("TFD*.ipynb"))
    assert len(notebooks) >= len([e for e in registry.load().values() if e.snippets])
    for notebook in notebooks:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        links = [u for c in cells if c["cell_type"] == "markdown"
                 for u in re.findall(r"\]\((https?://[^)\s]+)\)", "".join(c["source"]))]
        own = [u for u in links if "/e/TFD" in u]
        assert own and all(u.startswith(PUBLISHED) for u in own), f"{notebook.name}: {own[:3]}"


def test_the_header_links_to_the_repository_only_when_one_is_set(published, site):
    for page in ("index.html", "errors/index.html", "zh/e/TFD001/index.html"):
        assert f'href="{REPOSITORY}"' in (published / page).read_text(encoding="utf-8"), page
        assert 'class="md-source"' not in (site / page).read_text(encoding="utf-8"), f"{page} (no repo_url)"


def _wheel_links(page: Path, site: Path) -> list[Path]:
    hrefs = re.findall(r"<a [^>]*href=\"([^\"]+\.whl)\"", page.read_text(encoding="utf-8"))
    base = page.parent
    return [(base / urllib.parse.unquote(h)).resolve() for h in hrefs]


def test_the_pages_offer_the_wheel_the_build_published(published, site):
    for built in (published, site):
        for page in ("errors/index.html", "zh/errors/index.html", "doctor/index.html", "zh/doctor/index.html"):
            links = _wheel_links(built / page, built)
            assert len(links) == 1 and links[0].is_file(), f"{page}: the package link {links}"
            assert links[0].name == wheel.published_name()
    text = (published / "errors/index.html").read_text(encoding="utf-8")
    assert f"pip install --no-index --find-links {PUBLISHED}{wheel.FOLDER}/ tfdist" in text


def test_the_wheel_carries_the_sites_error_index(published):
    site_index = json.loads((published / "errors.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(published / wheel.FOLDER / wheel.published_name()) as archive:
        names = set(archive.namelist())
        packaged = json.loads(archive.read("tfdist/data/errors.json"))
    assert {"tfdist/cli.py", "tfdist/matcher.py", "tfdist/doctor.py", "tfdist/hook.py"} <= names
    assert packaged == site_index


def test_the_wheel_installs_from_the_sites_folder_and_links_to_the_site(published, tmp_path):
    """What the pages tell a reader to run, from the site's download folder (a file:// copy of what
    the host serves), into a fresh environment with nothing else: then `tfdist explain`."""
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index",
                              "--find-links", (published / wheel.FOLDER).as_uri() + "/", "tfdist"],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k not in (errors.BASE_URL_VARIABLE, "PYTHONPATH", "TFDIST_DATA")}
    explain = subprocess.run([str(target / "bin" / "tfdist"), "explain", "TFD001"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert explain.returncode == 0, explain.stderr
    assert f"{PUBLISHED}e/TFD001/" in explain.stdout
