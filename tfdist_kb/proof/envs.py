"""The pinned TensorFlow environments snippets run in: read their table, create and check them.

Each environment is `.envs/NAME`, made by uv from the lock file `tfdist_kb/proof/envs/NAME.txt`
with an interpreter from pyenv. A stamp (hash of lock file and interpreter version) keeps a
built environment until its pins change; before any run and after every install, every
distribution installed there (name, version, and how: from the index, or from a path, URL, VCS
checkout or editable install) is compared with the pins, and any difference stops with a message
naming the environment and the command that rebuilds it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from . import files

PACKAGE = Path(__file__).resolve().parent
PINS = PACKAGE / "envs"
ROOT = PACKAGE.parent.parent
HOME = ROOT / ".envs"


class EnvError(Exception):
    """An environment cannot be used; the message names it and says why."""


@dataclass(frozen=True)
class Env:
    name: str
    python: str
    about: str
    environ: dict = field(default_factory=dict, hash=False, compare=False)
    only: tuple = ()  # a bisection environment runs only snippets matching these patterns
    fork: bool = True  # may snippets run forked from a pre-imported TensorFlow (tfdist_kb.proof.forkserver)?

    @property
    def lock(self) -> Path:
        return PINS / f"{self.name}.txt"

    @property
    def path(self) -> Path:
        return HOME / self.name

    @property
    def interpreter(self) -> Path:
        return self.path / "bin" / "python"

    def pins(self) -> dict[str, str]:
        return read_pins(self.lock)

    def python_version(self) -> str:
        """The exact interpreter version, as the virtual environment records it."""
        for line in (self.path / "pyvenv.cfg").read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version_info", "version"):
                return value.strip()
        raise EnvError(f"environment {self.name}: pyvenv.cfg names no Python version")

    def fingerprint(self) -> str:
        """Changes whenever what is installed would change."""
        return hashlib.sha256(self.lock.read_bytes() + self.python.encode()).hexdigest()[:16]

    def process_environ(self) -> dict[str, str]:
        """The process environment a snippet runs with: the caller's, without any TensorFlow,
        Keras or virtualenv settings (importing TensorFlow 2.x sets TF2_BEHAVIOR=1 in its own
        process, which would turn TF 1.15 children into TF 2 mode), plus this environment's own."""
        environ = {k: v for k, v in os.environ.items()
                   if not k.startswith(_NOT_INHERITED) and k not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH")}
        environ.update({"TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": str(ROOT)})
        environ.update(self.environ)
        return environ


_NOT_INHERITED = ("TF_", "TF2_", "TPU_", "KERAS_", "ENABLE_RUNTIME_UPTIME_TELEMETRY", "HDF5_PLUGIN_PATH")


def read_pins(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[normalise(name)] = version.split(";")[0].strip()
    return pins


def normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def load() -> list[Env]:
    """All environments, the default one first."""
    table = tomllib.loads((PINS / "envs.toml").read_text())
    return [Env(e["name"], e["python"], e["about"], dict(e.get("environ", {})), tuple(e.get("only", ())),
                bool(e.get("fork", True)))
            for e in table["env"]]


def default() -> Env:
    return load()[0]


def select(names: str | None) -> list[Env]:
    """Environments named in a comma-separated list ('all' or empty: every one)."""
    every = load()
    if not names or names == "all":
        return every
    if names == "default":
        return every[:1]
    by_name = {e.name: e for e in every}
    chosen = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name not in by_name:
            raise EnvError(f"unknown environment {name!r}; known: {', '.join(by_name)}")
        chosen.append(by_name[name])
    return chosen


def find_interpreter(version: str) -> Path:
    """A CPython of `version` (e.g. '3.7') from pyenv or PATH."""
    candidates = []
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    versions = Path(pyenv_root) / "versions"
    if versions.is_dir():
        candidates += sorted(versions.glob(f"{version}.*/bin/python{version}"), reverse=True)
    on_path = shutil.which(f"python{version}")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        probe = subprocess.run([str(candidate), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    raise EnvError(f"no working Python {version} found (looked in {versions} and PATH)")


def uv() -> str:
    here = Path(sys.executable).parent / "uv"
    found = str(here) if here.exists() else shutil.which("uv")
    if not found:
        raise EnvError("uv is not installed in this environment (make installs it into .venv)")
    return found


@dataclass(frozen=True)
class Installed:
    """One distribution installed in an environment: its version and where it came from."""
    version: str
    source: str | None = None  # None: from a package index, as the lock pins; else how (a path, URL, VCS, editable)

    def __str__(self) -> str:
        if self.source is None:
            return self.version
        return f"{self.version} installed from {self.source}" if self.version else self.source


def site_packages(env: Env) -> list[Path]:
    """The folders the environment's packages are installed in (lib/pythonX.Y/site-packages)."""
    found = {p.resolve(): p for pattern in ("lib/python*/site-packages", "lib64/python*/site-packages")
             for p in sorted(env.path.glob(pattern)) if p.is_dir()}
    return list(found.values())


def _source(dist: metadata.Distribution) -> str | None:
    """How a distribution was installed if not from an index (PEP 610 direct_url.json, written by
    pip and uv for a path, an archive URL, a VCS checkout or an editable install); legacy
    installs (.egg-info: `setup.py install/develop`) say so."""
    text = dist.read_text("direct_url.json")
    if text is not None:
        try:
            direct = json.loads(text)
            url = str(direct["url"])
        except (ValueError, KeyError, TypeError):
            return "an unreadable direct_url.json"
        if isinstance(direct.get("vcs_info"), dict):
            vcs = direct["vcs_info"]
            url = f"{vcs.get('vcs', 'vcs')}+{url}@{vcs.get('commit_id', '?')}"
        if isinstance(direct.get("dir_info"), dict) and direct["dir_info"].get("editable"):
            return f"{url} (editable)"
        return url
    where = getattr(dist, "_path", None)
    if where is not None and Path(where).suffix == ".egg-info":
        return f"{Path(where).name} (a legacy setup.py install)"
    return None


# Written by `uv venv` itself into every environment, owned by no distribution.
_VENV_FILES = ("_virtualenv.pth",)


def installed(env: Env) -> dict[str, str]:
    """The version of every distribution installed in the environment, however it was installed."""
    return {name: dist.version for name, dist in distributions(env).items()}


def distributions(env: Env) -> dict[str, Installed]:
    """Every distribution in the environment's site-packages, however it was installed (from the
    index, a path, a URL, a VCS, editable), read from its metadata; a `.pth` file that no
    distribution installed (it puts a folder on sys.path by hand) is listed as one too."""
    folders = site_packages(env)
    if not folders:
        raise EnvError(f"environment {env.name}: no site-packages folder under {env.path} "
                       f"(rebuild it with: tfdist envs {env.name} --rebuild)")
    out: dict[str, Installed] = {}
    dists = list(metadata.distributions(path=[str(f) for f in folders]))
    for dist in dists:
        name, version = dist.metadata["Name"], dist.metadata["Version"]
        if not name or not version:
            where = getattr(dist, "_path", "?")
            raise EnvError(f"environment {env.name}: {where} has no name or version in its metadata; "
                           f"rebuild it with: tfdist envs {env.name} --rebuild")
        key = normalise(name)
        if key in out:  # two copies of one distribution: which one imports is anybody's guess
            out[key] = Installed(f"{out[key].version} and {version}", "two installations")
            continue
        out[key] = Installed(version, _source(dist))
    loose = [pth for folder in folders for pth in sorted(folder.glob("*.pth")) if pth.name not in _VENV_FILES]
    if loose:  # which of them a distribution installed: its RECORD lists it (read only when needed: it is long)
        records = [dist.read_text("RECORD") or "" for dist in dists]
        for pth in loose:
            if not any(f"\n{pth.name}," in f"\n{record}" for record in records):
                out[pth.name] = Installed("", f"a .pth file that no package installed: {pth}")
    return out


def check_pins(env: Env) -> dict[str, Installed]:
    """What is installed, if it is exactly the lock file's pins, each from the index (not from a
    path, URL, VCS or editable install); EnvError naming every difference and the rebuild command.
    The project never installs its own `tfdist` package into an environment: tests that need it
    there put tfdist/src on PYTHONPATH for the one process (tests/test_hook_in_envs.py)."""
    have, want = distributions(env), env.pins()
    wrong = []
    for name, version in sorted(want.items()):
        got = have.get(name)
        if got is None:
            wrong.append(f"{name} missing (pinned {version})")
        elif got.source:
            wrong.append(f"{name} {got} (pinned {version}, from the index)")
        elif got.version != version:
            wrong.append(f"{name} {got} (pinned {version})")
    wrong += [f"{name} {have[name]} (not pinned)" if have[name].version else f"{name} ({have[name]})"
              for name in sorted(set(have) - set(want))]
    if wrong:
        raise EnvError(f"environment {env.name}: what is installed differs from its lock file: {'; '.join(wrong)}; "
                       f"rebuild it with: tfdist envs {env.name} --rebuild")
    return have


_checked: dict[str, str] = {}  # environment name -> fingerprint of what is installed, checked this process


def installed_fingerprint(env: Env) -> str:
    """A hash of what is really installed (checked against the lock first) and the interpreter:
    part of every run's cache key, so a run is never taken from the cache for other packages."""
    if env.name not in _checked:
        have = check_pins(env)
        listing = "\n".join(f"{n}=={v.version}" for n, v in sorted(have.items())) + "\n" + env.python_version()
        _checked[env.name] = hashlib.sha256(listing.encode()).hexdigest()[:16]
    return _checked[env.name]


def _stamp(env: Env) -> Path:
    return env.path / "tfdist-stamp.json"


def is_ready(env: Env) -> bool:
    try:
        return json.loads(_stamp(env).read_text())["fingerprint"] == env.fingerprint() and env.interpreter.exists()
    except (OSError, ValueError, KeyError):
        return False


def ensure(env: Env, log=print, rebuild: bool = False) -> Env:
    """Create or update `env` when its pins changed, then check that what is installed is exactly
    its lock (a built environment too: packages can be changed by hand); EnvError on any problem."""
    _checked.pop(env.name, None)
    if is_ready(env) and not rebuild:
        installed_fingerprint(env)
        return env
    if not env.lock.exists():
        raise EnvError(f"environment {env.name}: lock file {env.lock} is missing (run: tfdist lock {env.name})")
    python = find_interpreter(env.python)
    log(f"[envs] building {env.name} (Python {env.python}) from {env.lock.name}")
    steps = [
        [uv(), "venv", "--quiet", "--clear", "--python", str(python), str(env.path)],
        [uv(), "pip", "sync", "--quiet", "--compile-bytecode", "--python", str(env.interpreter), str(env.lock)],
    ]
    for step in steps:
        result = subprocess.run(step, capture_output=True, text=True)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise EnvError(f"environment {env.name}: '{' '.join(step[1:3])}' failed: {last}")
    installed_fingerprint(env)
    files.write_atomic(_stamp(env), json.dumps({"fingerprint": env.fingerprint()}))
    return env


def lock(env: Env) -> None:
    """Recompile NAME.txt from NAME.in (exact pins for every dependency)."""
    source = PINS / f"{env.name}.in"
    python = find_interpreter(env.python)
    subprocess.run([uv(), "pip", "compile", "--quiet", "--no-header", "--python", str(python),
                    "--python-platform", "x86_64-manylinux_2_28", str(source), "-o", str(env.lock)],
                   check=True)
