"""snippets/evidence.json: the committed record of every (snippet, environment) run.

Written only by `tfdist matrix` (make matrix) from real runs; read by the tests (freshness and
re-run comparison) and by the site (verified-on lines, outputs, version tables).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
from pathlib import Path

from . import files, messages
from .envs import ROOT

PATH = ROOT / "snippets" / "evidence.json"
FIELDS = ("snippet", "env", "python", "tensorflow", "keras", "keras_package", "sha256", "outcome", "exception",
          "headline", "message", "reason", "replicas", "devices", "reduction", "ran_on", "seconds", "stdout", "date",
          "tasks")
# What must be the same when the same snippet runs again in the same environment: everything a
# page shows of a run. The whole message and its headline are recorded normalised
# (tfdist_kb.proof.messages.message: paths of this machine and checkout, addresses, and what depends on
# which replica reported first left out), so the stored text is what pages show and what a re-run
# must give again, character for character. `ran_on`: the 4 devices the run's replicas were on.
COMPARED = ("outcome", "exception", "headline", "message", "replicas", "ran_on", "reduction", "stdout", "python",
            "tensorflow", "keras", "keras_package", "tasks")
# `tasks`: a run of a local cluster (tfdist_kb.proof.cluster) says what each task did (outcome, exception,
# headline, stdout); absent from the record of a run in one process.
EXECUTED = ("passed", "raised", "timed-out")  # the outcomes of a run that really ran


def problems(record: dict) -> list[str]:
    """Why `record` is not a run the evidence may hold ([] if it is): an executed run must name the
    4 distinct devices its 4 replicas were on, whatever its outcome; a raised one its exception and
    its message as the runner records it (normalised: a path of the machine, say, was never recorded)."""
    found = []
    if record.get("outcome") not in EXECUTED:
        return found
    devices = record.get("ran_on") or []
    if record.get("replicas") != 4 or not isinstance(devices, list) or len(set(devices)) < 4:
        found.append(f"replicas {record.get('replicas')!r} on {devices!r}: not 4 replicas on 4 distinct devices")
    if record["outcome"] == "raised":
        text, headline = record.get("message"), record.get("headline")
        if not (isinstance(record.get("exception"), str) and isinstance(text, str) and isinstance(headline, str)
                and (headline.strip() or not text.strip())):  # empty only where the exception said nothing
            found.append("a raised run without its exception, message and headline")
        elif messages.without_replica_choice(messages.normalise(text)) != text:
            found.append("the message is not in the form the runner records (normalised), e.g. it holds a path of "
                         "this machine or a part that depends on which replica reported first")
    return found


Key = tuple  # (snippet path relative to the repo root, environment name)


class EvidenceError(Exception):
    """The evidence file cannot be read (truncated, edited by hand): a one-line message naming it."""


def public(record: dict) -> dict:
    return {f: record.get(f) for f in FIELDS if f != "tasks" or record.get("tasks")}


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
    """How a fresh run differs from the committed evidence for the same snippet and environment:
    each compared field exactly. `exceptions`: the names the snippet declares interchangeable
    (tfdist_kb.proof.expect): a run that raised one of them does not differ from one that raised another,
    and then their messages (each its own exception's) are not compared either, nor what the run
    printed before it raised (a different exception may stop it at a different line)."""
    out = []
    swapped = (committed.get("exception") != fresh.get("exception")
               and {committed.get("exception"), fresh.get("exception")} <= set(exceptions))
    # A local cluster that fails: which task notices first, and so the wording of every task's error
    # (the peer it names, how many "Collective ops is aborted by:" it nests), is timing, as which replica
    # reports first is in one process. Its exception (as declared), the declared match (judged on every
    # run), the first task's output and the tasks themselves are compared; the words are not.
    cluster = bool(committed.get("tasks")) and bool(fresh.get("tasks")) and fresh.get("outcome") != "passed"
    # Several replicas of one process that fail together: how many of them have reported when the error
    # reaches Python ("3 root error(s) found", or one replica's error alone) is timing too. The first
    # one's own message, the headline, is compared; the whole message is not.
    several = any(messages.several_reported(record.get("message")) for record in (committed, fresh))
    for name in COMPARED:
        if swapped and name in ("exception", "headline", "message", "stdout"):
            continue
        if cluster and name in ("headline", "message"):
            continue
        if several and name == "message":
            continue
        if cluster and name == "tasks":
            if [t["task"] for t in committed["tasks"]] != [t["task"] for t in fresh["tasks"]]:
                out.append(f"tasks: committed {[t['task'] for t in committed['tasks']]}, "
                           f"now {[t['task'] for t in fresh['tasks']]}")
            continue
        was, now = committed.get(name), fresh.get(name)
        if was == now:
            continue
        if isinstance(was, str) and isinstance(now, str) and max(len(was), len(now)) > 200:
            at = next((i for i, (a, b) in enumerate(zip(was, now)) if a != b), min(len(was), len(now)))
            was, now = (f"…{text[max(0, at - 60):at + 100]!r}… (character {at} on)" for text in (was, now))
            out.append(f"{name}: committed {was}, now {now}")
        else:
            out.append(f"{name}: committed {was!r}, now {now!r}")
    return out
