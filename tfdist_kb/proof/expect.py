"""Read what a snippet declares it will do, and judge a run against it.

A snippet starts with an inline metadata block in the style of PEP 723:

    # /// tfdist
    # [expect]
    # default = "passes"
    # "tf2.4" = { raises = "ValueError", match = "regex" }
    # "tf2.21-keras3" = { prints = "regex on stdout" }
    # "tf1.15" = { not-applicable = "reason" }
    # "tf2.15" = { hangs = 60 }      # documented: does not finish within 60 s
    # ///

`raises` may list several exception names where thread timing decides which one TensorFlow
raises for the same failure (which replica's error reaches Python first): any of them passes,
and two runs that raised different ones of them do not differ (tfdist_kb.proof.evidence).

Every environment gets exactly one expectation, from its own key or from `default`.

A snippet that cannot run forked from a pre-imported TensorFlow (the fast mode of
tfdist_kb.proof.forkserver), for example one that must set a variable before TensorFlow is imported,
says so above [expect]: `# fresh-process = "sets TF_XLA_FLAGS before importing TensorFlow"`.

The runner quiets TensorFlow's own log (`TF_CPP_MIN_LOG_LEVEL=2`: no INFO or WARNING lines from its
C++ core). A snippet whose subject is such a line runs with the log as a user's machine has it (the
variable unset, in a fresh process, since TensorFlow reads it once): it says so above [expect],
`# tensorflow-log = "it shows the warning TensorFlow logs at the end of an epoch"`.

A snippet that cannot run in the same Jupyter kernel as the snippets before it in its entry's
notebook (tfdist_kb.site.notebooks runs them top to bottom in one kernel) says why above [expect]:
`# restart-kernel = "a second MirroredStrategy in one process reuses the first one's collective keys"`.
The notebook then tells the reader to restart the kernel there, and its test does exactly that.

A snippet whose subject is setting up devices (splitting a CPU or a GPU into logical devices) says
so above [expect]: `# configures-devices = "it splits the CPU into 4 logical devices itself"`. The
runner then configures nothing before it (tfdist_kb.proof.child), in a fork as in a fresh process, so
the snippet meets TensorFlow as `python snippet.py` would; its run must still prove 4 replicas on 4
distinct devices, now the ones it set up.

A snippet that runs as a local cluster of TensorFlow processes (MultiWorkerMirroredStrategy,
ParameterServerStrategy) declares its tasks above [expect]: `# cluster = { worker = 4 }`. The runner
(tfdist_kb.proof.cluster) starts one process per task, over loopback only, each with its TF_CONFIG, and
judges the tasks together; `make test` forks the tasks from a TensorFlow imported once, as it forks
single runs (tfdist_kb.proof.forkpool). A cluster snippet's `raises` may name the task that must
raise it, where only that task can (the coordinator of a parameter-server cluster):
`"tf2.15" = { raises = "ValueError", match = "regex", task = "chief:0" }`.

After the snippet, the runner's child has `tfdist.doctor` inspect the snippet's module-level
`strategy`, `optimizer` and models; which globals are models it inspects is declared on one line above
[expect], `# doctor = ["model", "loaded"]` (a model the snippet revives, say); `["model"]` when absent.
"""
from __future__ import annotations

import keyword
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import child

BLOCK = re.compile(r"^# /// tfdist\s*$(?P<body>(?:\n#.*$)*?)\n# ///\s*$", re.MULTILINE)
# The keys besides [expect] that a tfdist block may hold, each the reason for a way of running it.
REASONS = {"fresh-process": "the snippet cannot run in a fork",
           "restart-kernel": "the snippet's notebook cell needs a restarted kernel",
           "configures-devices": "the snippet sets up its own devices",
           "tensorflow-log": "the snippet shows a line of TensorFlow's own log"}
KINDS = ("passes", "raises", "prints", "not-applicable", "hangs")


class ExpectError(Exception):
    """A snippet's declared expectation is missing or malformed."""


@dataclass(frozen=True)
class Expectation:
    kind: str  # one of KINDS
    exception: str | None = None  # raises: the exception's class name ("A or B" where several are declared)
    match: str | None = None  # regex: on the message (raises) or on stdout (prints)
    reason: str | None = None  # not-applicable
    seconds: float | None = None  # hangs: the run is stopped after this long
    task: str | None = None  # raises, in a cluster: the task ("chief:0") that must raise it

    def describe(self) -> str:
        if self.kind == "raises":
            return f"raises {self.exception} matching /{self.match}/" + (f" in {self.task}" if self.task else "")
        if self.kind == "prints":
            return f"passes, printing /{self.match}/"
        if self.kind == "not-applicable":
            return f"not applicable: {self.reason}"
        if self.kind == "hangs":
            return f"does not finish within {self.seconds:g} s"
        return "passes"

    @property
    def exceptions(self) -> tuple[str, ...]:
        """The exception names a raising run may have (one, or the interchangeable ones declared)."""
        return tuple(self.exception.split(" or ")) if self.exception else ()

    def judge(self, record: dict) -> list[str]:
        """Ways in which a run record departs from this expectation (empty: as expected)."""
        outcome = record.get("outcome")
        if self.kind == "not-applicable":
            return [] if outcome == "not-applicable" else [f"expected not-applicable, got {outcome}"]
        if self.kind == "hangs":
            return [] if outcome == "timed-out" else [f"expected it not to finish within {self.seconds:g} s, but it {outcome}"]
        if self.kind == "raises":
            if outcome != "raised":
                return [f"expected {self.exception} matching /{self.match}/, but it {outcome}"]
            problems = []
            if record.get("exception") not in self.exceptions:
                problems.append(f"expected {self.exception}, got {record.get('exception')}: {record.get('message')}")
            if not re.search(self.match, record.get("message") or ""):  # the whole message
                problems.append(f"message {record.get('headline') or record.get('message')!r} does not match /{self.match}/")
            if self.task:
                tasks = {t.get("task"): t for t in record.get("tasks") or []}
                if not tasks:
                    problems.append(f"expected {self.task} to raise, but the run is not a cluster's")
                elif self.task not in tasks:
                    problems.append(f"expected {self.task} to raise, but the cluster has no such task ({', '.join(tasks)})")
                elif (tasks[self.task].get("outcome") != "raised"
                      or tasks[self.task].get("exception") not in self.exceptions):
                    t = tasks[self.task]
                    problems.append(f"expected {self.task} to raise {self.exception}, but it "
                                    + (f"raised {t.get('exception')}" if t.get("outcome") == "raised" else str(t.get("outcome"))))
            return problems
        if outcome != "passed":
            return [f"expected it to pass, but it raised {record.get('exception')}: {record.get('message')}"]
        if self.kind == "prints" and not re.search(self.match, record.get("stdout", ""), re.MULTILINE):
            return [f"stdout does not match /{self.match}/"]
        return []


def _parse_one(where: str, value) -> Expectation:
    if value == "passes":
        return Expectation("passes")
    if not isinstance(value, dict) or len(set(value) & {"raises", "prints", "not-applicable", "hangs"}) != 1:
        raise ExpectError(f"{where}: expected \"passes\" or a table with one of raises/prints/not-applicable/hangs, got {value!r}")
    unknown = set(value) - {"raises", "match", "prints", "not-applicable", "hangs", "task"}
    if unknown:
        raise ExpectError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if "task" in value and ("raises" not in value or not isinstance(value["task"], str)
                            or not re.fullmatch(r"(?:chief|worker|ps|evaluator):\d+", value["task"])):
        raise ExpectError(f"{where}: 'task' names the cluster task that raises ('chief:0', 'worker:1'), "
                          f"with 'raises' only, got {value['task']!r}")
    if "hangs" in value:
        if not isinstance(value["hangs"], (int, float)) or not 5 <= value["hangs"] <= 600:
            raise ExpectError(f"{where}: 'hangs' takes the seconds after which the run is stopped (5 to 600)")
        return Expectation("hangs", seconds=float(value["hangs"]))
    if "raises" in value:
        if not isinstance(value.get("match"), str):
            raise ExpectError(f"{where}: 'raises' needs a 'match' regex for the message")
        names = value["raises"] if isinstance(value["raises"], list) else [value["raises"]]
        if not names or not all(isinstance(n, str) and re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
            raise ExpectError(f"{where}: 'raises' takes an exception's class name, or a list of the names "
                              f"thread timing chooses between, got {value['raises']!r}")
        exp = Expectation("raises", exception=" or ".join(names), match=value["match"], task=value.get("task"))
    elif "prints" in value:
        exp = Expectation("prints", match=value["prints"])
    else:
        if not str(value["not-applicable"]).strip():
            raise ExpectError(f"{where}: 'not-applicable' needs a reason")
        return Expectation("not-applicable", reason=value["not-applicable"])
    try:
        re.compile(exp.match)
    except re.error as error:
        raise ExpectError(f"{where}: bad regex /{exp.match}/: {error}") from None
    return exp


def _block(snippet: Path) -> dict:
    """The snippet's `# /// tfdist` block as TOML; ExpectError if it is missing or malformed."""
    found = BLOCK.search(snippet.read_text())
    if not found:
        raise ExpectError(f"{snippet}: no '# /// tfdist' ... '# ///' block declaring [expect]")
    body = "\n".join(line[2:] if line.startswith("# ") else line[1:] for line in found["body"].strip("\n").splitlines())
    try:
        block = tomllib.loads(body)
    except tomllib.TOMLDecodeError as error:
        raise ExpectError(f"{snippet}: the tfdist block is not valid TOML: {error}") from None
    unknown = set(block) - {"expect", "doctor", "cluster", *REASONS}
    if unknown:
        raise ExpectError(f"{snippet}: the tfdist block has unknown key(s) {', '.join(sorted(unknown))} "
                          f"(known: [expect], doctor, cluster, {', '.join(REASONS)})")
    if "doctor" in block:
        names = block["doctor"]
        if (not isinstance(names, list) or not names or len(set(map(str, names))) != len(names)
                or not all(isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n) for n in names)):
            raise ExpectError(f"{snippet}: 'doctor' takes a list of the module-level names the doctor inspects as "
                              f"models, each once, e.g. [\"model\", \"loaded\"]; got {names!r}")
        if child.doctor_names(found.string) != names:  # what the runner's child reads, with no TOML parser
            raise ExpectError(f"{snippet}: write 'doctor' on one line of the tfdist block, e.g. "
                              f"# doctor = [\"model\", \"loaded\"]")
    if "cluster" in block:
        _cluster_tasks(snippet, block["cluster"])
    for key, what in REASONS.items():
        reason = block.get(key)
        if reason is not None and (not isinstance(reason, str) or not reason.strip()):
            raise ExpectError(f"{snippet}: '{key}' takes the reason why {what}")
    if ("configures-devices" in block) != child.configures_devices(found.string):  # what the child reads
        raise ExpectError(f"{snippet}: write 'configures-devices' on a line of its own in the tfdist block, "
                          f"e.g. # configures-devices = \"it splits the CPU into 4 logical devices itself\"")
    return block


# The task types of a local cluster, in the order they are numbered and reported, and how many of each.
TASK_TYPES = {"chief": 1, "worker": 8, "ps": 4, "evaluator": 1}


def _cluster_tasks(snippet: Path, table) -> list[tuple[str, int]]:
    if (not isinstance(table, dict) or not table or set(table) - set(TASK_TYPES)
            or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= TASK_TYPES[k] for k, n in table.items())
            or not 2 <= sum(table.values()) <= 8):
        raise ExpectError(f"{snippet}: 'cluster' takes the tasks of a local cluster, 2 to 8 in all, e.g. "
                          f"cluster = {{ worker = 4 }} or {{ chief = 1, worker = 2, ps = 1 }} "
                          f"(types: {', '.join(TASK_TYPES)}); got {table!r}")
    return [(kind, i) for kind in TASK_TYPES for i in range(table.get(kind, 0))]


def cluster(snippet: Path) -> list[tuple[str, int]] | None:
    """The tasks of the local cluster the snippet runs as (declared `cluster = { worker = 4 }` above
    [expect]: tfdist_kb.proof.cluster starts one process per task), or None: one process."""
    table = _block(snippet).get("cluster")
    return None if table is None else _cluster_tasks(snippet, table)


def doctor_models(snippet: Path) -> list[str]:
    """The module-level names `tfdist.doctor` inspects as models after the snippet ran (declared
    `doctor = ["model", "loaded"]` above [expect]); ["model"] where none is declared."""
    return _block(snippet).get("doctor", ["model"])


def restart_kernel(snippet: Path) -> str | None:
    """Why the snippet's notebook cell needs a restarted kernel (declared `restart-kernel =
    "reason"` above [expect]), or None."""
    return _block(snippet).get("restart-kernel")


def fresh_process(snippet: Path) -> str | None:
    """Why the snippet must run as a fresh process, not forked from a pre-imported TensorFlow
    (declared `fresh-process = "reason"` above [expect]), or None."""
    return _block(snippet).get("fresh-process")


def tensorflow_log(snippet: Path) -> str | None:
    """Why the snippet runs with TensorFlow's own log at a user's default level (declared
    `tensorflow-log = "reason"` above [expect]), or None."""
    return _block(snippet).get("tensorflow-log")


def configures_devices(snippet: Path) -> str | None:
    """Why the snippet sets up its own devices, the runner none before it (declared
    `configures-devices = "reason"` above [expect]), or None."""
    return _block(snippet).get("configures-devices")


def read(snippet: Path, env_names: list[str]) -> dict[str, Expectation]:
    """The expectation for every environment, or ExpectError naming the file and the problem."""
    table = _block(snippet).get("expect")
    if not isinstance(table, dict) or not table:
        raise ExpectError(f"{snippet}: the tfdist block has no [expect] table")
    unknown = set(table) - set(env_names) - {"default"}
    if unknown:
        raise ExpectError(f"{snippet}: [expect] names unknown environment(s): {', '.join(sorted(unknown))}")
    result = {}
    for name in env_names:
        if name not in table and "default" not in table:
            raise ExpectError(f"{snippet}: no expectation for environment {name} and no default")
        result[name] = _parse_one(f"{snippet} [{name}]", table.get(name, table.get("default")))
    return result
