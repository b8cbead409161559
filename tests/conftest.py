"""Fixtures shared by the site, browser and PDF tests: one strict build of the site per session."""
import subprocess
import sys

import pytest

from tfdist_kb import registry

ROOT = registry.ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site as `make site` builds it (strict), in a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    return out
