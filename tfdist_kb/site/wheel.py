"""The `tfdist` package offered by the site itself: a wheel built with each site build, whose error
index is the site's own (its links the site's address), so that "install it" needs nothing but the
site. Published as `download/<wheel>` with `download/index.html`, a page of links that
`pip install --no-index --find-links <site>download/ tfdist` reads.

The wheel is built by pip (`pip wheel`, no network, the build tools the site's environment pins) from
a copy of `tfdist/` whose data file is replaced by the given index; it is kept in `.cache/wheel/`
under the hash of its inputs, so an unchanged package is not rebuilt on every `make serve` reload.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..proof import envs

PACKAGE = envs.ROOT / "tfdist"
CACHE = envs.ROOT / ".cache" / "wheel"
FOLDER = "download"
PAGE = "index.html"


class WheelError(RuntimeError):
    """pip could not build the package."""


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix != ".pyc" and "egg-info" not in str(p.relative_to(PACKAGE))
                  and p.relative_to(PACKAGE).as_posix() != "src/tfdist/data/errors.json")


def _key(index_text: str) -> str:
    digest = hashlib.sha256(index_text.encode("utf-8"))
    for path in _sources():
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build(index_text: str) -> Path:
    """The wheel of `tfdist` carrying `index_text` as its data/errors.json (built once per input)."""
    cached = CACHE / _key(index_text)
    found = sorted(cached.glob("tfdist-*.whl"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(prefix="tfdist-wheel-") as tmp:
        source = Path(tmp) / "tfdist"
        shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        (source / "src" / "tfdist" / "data" / "errors.json").write_text(index_text, encoding="utf-8")
        out = Path(tmp) / "out"
        run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                              "--no-index", "--wheel-dir", str(out), str(source)],
                             capture_output=True, text=True)
        wheels = sorted(out.glob("tfdist-*.whl"))
        if run.returncode != 0 or len(wheels) != 1:
            raise WheelError(f"pip wheel failed to build tfdist/: {(run.stderr or run.stdout).strip()[-600:]}")
        cached.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(wheels[0], cached / wheels[0].name))


def page(wheel_name: str) -> str:
    """download/index.html: one link to the wheel, the shape pip's --find-links reads."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>tfdist package</title></head>\n"
            f"<body><h1>tfdist package</h1><p><a href=\"{wheel_name}\">tfdist wheel</a></p></body>\n</html>\n")


def publish(index_text: str, out: Path) -> list[str]:
    """Write download/<wheel> and download/index.html under `out`; their paths relative to it."""
    wheel = build(index_text)
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(wheel, folder / wheel.name)
    (folder / PAGE).write_text(page(wheel.name), encoding="utf-8")
    return [f"{FOLDER}/{wheel.name}", f"{FOLDER}/{PAGE}"]


def published_name() -> str:
    """The wheel's file name as pip names it: tfdist-<version>-py3-none-any.whl (from tfdist/pyproject.toml)."""
    import tomllib

    version = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    return f"tfdist-{version}-py3-none-any.whl"
