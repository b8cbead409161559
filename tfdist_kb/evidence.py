"""snippets/evidence.json: the committed record of every (snippet, environment) run.

Written only by `tfdist matrix` (make matrix) from real runs; read by the tests (freshness and
re-run comparison) and by the site (verified-on lines, outputs, version tables).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import re
from pathlib import Path

from . import files, messages
from .envs import ROOT

PATH = ROOT / "snippets" / "evidence.json"
FIELDS = ("snippet", "env", "python", "tensorflow", "keras", "keras_package", "sha256", "outcome", "exception",
          "headline", "message", "reason", "replicas", "devices", "reduction", "ran_on", "seconds", "stdout", "date")
# What must be the same when the same snippet runs again in the same environment. The whole
# message is kept but not compared: where several replicas fail, which one reports first (and so
# which node, `Placeholder_3` or `Placeholder_1`, the message names) changes from run to run. The
# headline is compared with such numeric suffixes of graph names left out, and with the index of
# the device a collective error names ("Op at device .../device:CPU:3"): the replica that reports it.
COMPARED = ("outcome", "exception", "headline", "replicas", "ran_on", "reduction", "stdout", "python", "tensorflow",
            "keras", "keras_package")
_DEVICE_INDEX = re.compile(r"(device:[A-Z_]*(?:CPU|GPU)):\d+")


def comparable_headline(text: str | None) -> str | None:
    """What two runs' headlines must share: `text` without graph names' numeric suffixes and
    without the index of the device a message names (which replica reported first)."""
    return _DEVICE_INDEX.sub(r"\1:N", messages.without_name_suffixes(text)) if text else text


_LOOSE = {"headline": comparable_headline}

Key = tuple  # (snippet path relative to the repo root, environment name)


class EvidenceError(Exception):
    """The evidence file cannot be read (truncated, edited by hand): a one-line message naming it."""


def public(record: dict) -> dict:
    return {f: record.get(f) for f in FIELDS}


_parsed: dict = {}  # path -> ((mtime, size), records): a site build asks thousands of times


def load(path: Path = PATH) -> dict[Key, dict]:
    """The recorded runs by (snippet, environment): a new dict of copies on every call, the file
    parsed again only when it changed."""
    if not path.exists():
        return {}
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _parsed.get(path)
    if cached is None or cached[0] != stamp:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            runs = {(r["snippet"], r["env"]): r for r in data["runs"]}
        except (ValueError, KeyError, TypeError) as error:
            raise EvidenceError(f"{path}: not a readable evidence file ({type(error).__name__}: "
                                f"{str(error)[:120]}); restore it from git or rewrite it with `make matrix`") from None
        cached = _parsed[path] = (stamp, runs)
    return {key: dict(record) for key, record in cached[1].items()}


@contextlib.contextmanager
def locked(path: Path = PATH):
    """Hold the evidence file's lock (a sibling lock file) while reading, merging and saving it."""
    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def save(records: list[dict], env_order: list[str], path: Path = PATH) -> None:
    rank = {name: i for i, name in enumerate(env_order)}
    runs = sorted((public(r) for r in records), key=lambda r: (r["snippet"], rank.get(r["env"], 99)))
    files.write_atomic(path, json.dumps({"generated_by": "tfdist matrix (make matrix)", "runs": runs},
                                        indent=1, ensure_ascii=False) + "\n")


def differences(committed: dict, fresh: dict, exceptions: tuple[str, ...] = ()) -> list[str]:
    """How a fresh run differs from the committed evidence for the same snippet and environment.
    `exceptions`: the names the snippet declares interchangeable (tfdist_kb.expect): a run that
    raised one of them does not differ from one that raised another."""
    out = []
    for name in COMPARED:
        loose = _LOOSE.get(name, lambda value: value)
        if name == "exception":
            loose = lambda value: "|".join(exceptions) if value in exceptions else value  # noqa: E731
        if loose(committed.get(name)) != loose(fresh.get(name)):
            out.append(f"{name}: committed {committed.get(name)!r}, now {fresh.get(name)!r}")
    return out
