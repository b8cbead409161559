"""The site builds with --strict (broken links, anchors, missing --8<-- targets and macro errors
fail it), and the pages carry what the evidence says."""
import subprocess
import sys
from pathlib import Path

import pytest

from tfdist_kb import registry

ROOT = registry.ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def test_entry_pages_have_permanent_urls(site):
    for entry in registry.load().values():
        if entry.status == "published":
            html = (site / "e" / entry.id / "index.html").read_text()
            assert entry.id in html
            assert "Verified on" in html and "Not verified" not in html, f"{entry.id}: no current evidence shown"


def test_notebooks_are_rendered_and_linked(site):
    for entry in registry.load().values():
        if entry.status == "published" and entry.snippets:
            assert (site / "notebooks" / entry.id / "index.html").exists()
            assert f'href="../../notebooks/{entry.id}/"' in (site / "e" / entry.id / "index.html").read_text()


def test_missing_snippet_fails_the_build(tmp_path):
    """check_paths: a --8<-- target that does not exist is a build error, not an empty block."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('# x\n\n```python title="x"\n--8<-- "TFD999/nope.py:example"\n```\n')
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [%s]\n"
                      "      check_paths: true\n" % (ROOT / "snippets"))
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                            "--site-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert build.returncode != 0 and "nope.py" in build.stderr
