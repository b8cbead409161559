"""The pinned TensorFlow environments snippets run in: read their table, create and check them.

Each environment is `.envs/NAME`, made by uv from the lock file `tfdist_kb/envs/NAME.txt`
with an interpreter from pyenv. A stamp (hash of lock file and interpreter version) keeps a
built environment until its pins change; after every install the installed versions are
compared with the pins, and any difference stops with a message naming the environment.
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
from pathlib import Path

from . import files

PACKAGE = Path(__file__).resolve().parent
PINS = PACKAGE / "envs"
ROOT = PACKAGE.parent
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
    fork: bool = True  # may snippets run forked from a pre-imported TensorFlow (tfdist_kb.forkserver)?

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


def installed(env: Env) -> dict[str, str]:
    result = subprocess.run([uv(), "pip", "freeze", "--python", str(env.interpreter)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise EnvError(f"environment {env.name}: cannot list installed packages: {result.stderr.strip()}")
    out = {}
    for line in result.stdout.splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            out[normalise(name)] = version.strip()
    return out


def check_pins(env: Env) -> dict[str, str]:
    """What is installed, if it is exactly the lock file's pins; EnvError naming every difference."""
    have, want = installed(env), env.pins()
    wrong = [f"{n} {have.get(n, 'missing')} (pinned {v})" for n, v in sorted(want.items()) if have.get(n) != v]
    extra = sorted(set(have) - set(want))
    if wrong or extra:
        detail = "; ".join(wrong + [f"{n} {have[n]} (not pinned)" for n in extra])
        raise EnvError(f"environment {env.name}: installed versions differ from its lock file: {detail}; "
                       f"rebuild it with: tfdist envs {env.name} --rebuild")
    return have


_checked: dict[str, str] = {}  # environment name -> fingerprint of what is installed, checked this process


def installed_fingerprint(env: Env) -> str:
    """A hash of what is really installed (checked against the lock first) and the interpreter:
    part of every run's cache key, so a run is never taken from the cache for other packages."""
    if env.name not in _checked:
        have = check_pins(env)
        listing = "\n".join(f"{n}=={v}" for n, v in sorted(have.items())) + "\n" + env.python_version()
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
