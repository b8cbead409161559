"""Fixtures shared by the site, browser and PDF tests: one strict build of the site per session."""
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tfdist_kb.site import registry

ROOT = registry.ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site as `make site` builds it (strict), in a temporary folder; $TFDIST_KB_SITE names an
    already built site to use instead (a quicker loop while working on the browser tests)."""
    if os.environ.get("TFDIST_KB_SITE"):
        return Path(os.environ["TFDIST_KB_SITE"]).resolve()
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser dropping a connection is no error
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def served_site(site):
    """The built site served over http on 127.0.0.1 (a free port, a thread): its base URL, no trailing slash."""
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # Debian's; never a downloaded one
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic",
    # Any host but the local server fails at once (the request is still recorded, and reported).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright, one per session (Playwright's sync API allows one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
