"""No result depends on where the checkout lives or on the machine's name.

- A clone of the repository in a folder named `tmp` (`.../tmp/kb`, as a temporary clone on any
  machine would be) runs the path-sensitive tests there, with its own code: the notebook
  determinism test, the normaliser's and the raised run's tests of tests/test_truth_records.py,
  and fresh runs of snippets whose messages carry a path in each release's own form (TF 2.4's
  shortened `defined at`, TF 1.15's `relative to`, TF 2.x's absolute `File "..."`, a file in the
  temporary folder), which must give the committed records field for compared field.
- Every path-like token the evidence recorded is of a form the normaliser emits, and no committed
  page, snippet or packaged data names this checkout, this home folder or this machine.

The clone is of the committed HEAD with the working tree's changes to tracked files applied (what
the rest of the suite tests); its `.envs` and `tfdist_kb/site/js/node_modules` are links to this
checkout's (ignored by git, built once).
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tfdist_kb.proof import envs, evidence, messages, runner

ROOT = runner.ROOT
# Ignored by git, needed by the tests that run in the clone, too big to rebuild there
LINKED = [".envs", "tfdist_kb/site/js/node_modules"]
# Tests whose result could depend on where the checkout lives (run from the clone)
PATH_SENSITIVE_TESTS = [
    "tests/test_notebooks.py::test_notebooks_are_deterministic",
    "tests/test_truth_records.py::test_recorded_message_does_not_depend_on_where_the_checkout_lives",
    "tests/test_truth_records.py::test_paths_outside_the_checkout_keep_their_meaning",
    "tests/test_truth_records.py::test_a_raised_run_records_its_four_devices_and_its_normalised_message",
]
# Runs whose committed message carries a path, one per form a release writes it in
PATH_CARRYING_RUNS = [
    ("snippets/TFD004/revived_dummy_call.py", "tf2.4"),  # `(defined at snippets/TFD004/...:82)`, shortened by TF
    ("snippets/TFD010/accumulator_without_aggregation.py", "tf1.15"),  # `relative to <checkout>:`
    ("snippets/TFD014/per_replica_captured_in_replica_fn.py", "tf2.21-keras3"),  # `File "snippets/..."`, absolute
    ("snippets/TFD004/custom_objects_dummy_call.py", "tf2.21-keras3"),  # `filepath=<tmpdir>`
]


def _git(*args, cwd=ROOT, **kwargs):
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, **kwargs)
    if done.returncode != 0:
        pytest.fail(f"git {args[0]} in {cwd} failed (these tests need a git checkout): "
                    f"{done.stderr.decode(errors='replace').strip()[-500:]}", pytrace=False)
    return done


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("checkout") / "tmp" / "kb"
    _git("clone", "--quiet", "--no-hardlinks", str(ROOT), str(where))
    changes = _git("diff", "HEAD", "--binary").stdout
    if changes:
        _git("apply", "--whitespace=nowarn", "-", cwd=where, input=changes)
    for rel in LINKED:
        if (ROOT / rel).exists():
            (where / rel).symlink_to(ROOT / rel, target_is_directory=True)
    return where


def _in(clone: Path, *args: str, timeout: float, **extra_env) -> subprocess.CompletedProcess:
    """This interpreter in a checkout (the clone, or this one), that checkout's packages first on
    sys.path (the development environment has tfdist_kb and tfdist installed editable from one)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TFDIST_KB_SITE")}
    environ.update(PYTHONPATH=os.pathsep.join([str(clone), str(clone / "tfdist" / "src")]), **extra_env)
    return subprocess.run([sys.executable, *args], cwd=clone, env=environ, capture_output=True, text=True,
                          timeout=timeout)


def test_the_clone_runs_its_own_code(clone):
    done = _in(clone, "-c", "import tfdist, tfdist_kb; from tfdist_kb.proof import runner; print(list(tfdist_kb.__path__)); "
                            "print(runner.__file__); print(tfdist.__file__); print(runner.ROOT)", timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    portions, kb, package, root = done.stdout.splitlines()
    assert clone.parent.name == "tmp" and "tmp" in Path(root).parts
    # the clone's folder first (a regular package now: its only one)
    assert json.loads(portions.replace("'", '"'))[0] == str(clone / "tfdist_kb")
    assert Path(kb) == clone / "tfdist_kb" / "proof" / "runner.py"
    assert Path(package) == clone / "tfdist" / "src" / "tfdist" / "__init__.py"
    assert Path(root) == clone


@pytest.mark.matrix
def test_path_sensitive_tests_pass_in_a_clone_under_a_tmp_folder(clone):
    done = _in(clone, "-m", "pytest", "-v", "-p", "no:cacheprovider", f"--basetemp={clone.parent.parent / 'pytest'}",
               *PATH_SENSITIVE_TESTS, timeout=400, TFDIST_ENVS="default")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    for test in PATH_SENSITIVE_TESTS:  # each ran there (none skipped or deselected) and passed
        assert re.search(rf"^{re.escape(test)}(\[[^\]]*\])? PASSED", done.stdout, re.M), (test, done.stdout[-3000:])
    assert not re.search(r"\b(SKIPPED|FAILED|ERROR)\b", done.stdout), done.stdout[-3000:]


# Run in the clone by test_a_run_from_the_clone_gives_the_committed_record: fresh runs (no cache),
# each compared with the committed record; prints {snippet@env: [differences]} as JSON.
_RECORD_FROM_HERE = """
import json, sys
from tfdist_kb.proof import envs, evidence, messages, runner
committed, jobs = evidence.load(), []
for rel, name in json.loads(sys.argv[1]):
    env = envs.select(name)[0]
    assert envs.is_ready(env), f"environment {name} is not built (make envs)"
    path = runner.ROOT / rel
    jobs.append(runner.Job(path, env, runner.expectations(path)[name]))
ran = runner.run_all(jobs, use_cache=False, workers=2, mode="fresh")
out = {}
for job in jobs:
    fresh = ran[(job.rel, job.env.name)]
    out[f"{job.rel}@{job.env.name}"] = (
        [f"no record: {fresh}"] if isinstance(fresh, Exception) else
        evidence.differences(committed[(job.rel, job.env.name)], fresh, job.expectation.exceptions))
from pathlib import Path
elsewhere = sorted(name for name, m in sys.modules.items()
                   if name.startswith("tfdist_kb.") and not Path(m.__file__).resolve().is_relative_to(runner.ROOT))
print(json.dumps({"differences": out, "imported from elsewhere": elsewhere}))
"""


@pytest.mark.matrix
def test_a_run_from_the_clone_gives_the_committed_record(clone):
    selected = {env.name for env in envs.select(os.environ.get("TFDIST_ENVS") or "all")}
    chosen = [(rel, name) for rel, name in PATH_CARRYING_RUNS if name in selected]
    if not chosen:
        pytest.skip(f"none of {sorted({n for _, n in PATH_CARRYING_RUNS})} selected by TFDIST_ENVS")
    committed = evidence.load()
    for rel, name in chosen:
        assert committed[(rel, name)]["outcome"] in ("raised", "passed")
    done = _in(clone, "-c", _RECORD_FROM_HERE, json.dumps(chosen), timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["imported from elsewhere"] == []
    found = said["differences"]
    assert sorted(found) == sorted(f"{rel}@{name}" for rel, name in chosen)
    assert {run: problems for run, problems in found.items() if problems} == {}


# Each language's notebooks, written by the checkout the code comes from: {LANG/ID.ipynb: sha256}
_NOTEBOOKS_FROM_HERE = """
import hashlib, json, sys
from pathlib import Path
from tfdist_kb.site import i18n, notebooks
out = {}
for lang in i18n.LANGUAGES:
    before = i18n.language()
    i18n.set_language(lang)
    try:
        written = notebooks.write_all(Path(sys.argv[1]) / lang, lang)
    finally:
        i18n.set_language(before)
    out.update({f"{lang}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in written})
print(json.dumps(out, sort_keys=True))
"""


def test_the_clone_writes_the_same_notebooks(clone, tmp_path):
    """A notebook names no place of the checkout it was generated in: byte for byte the same from a
    clone under a tmp folder (the readers' download, and mkdocs-jupyter's cache key)."""
    here = _in(ROOT, "-c", _NOTEBOOKS_FROM_HERE, str(tmp_path / "here"), timeout=120)
    there = _in(clone, "-c", _NOTEBOOKS_FROM_HERE, str(tmp_path / "there"), timeout=120)
    assert here.returncode == 0 and there.returncode == 0, here.stderr[-2000:] + there.stderr[-2000:]
    ours, theirs = json.loads(here.stdout), json.loads(there.stdout)
    assert {name.split("/")[0] for name in ours} == {"en", "zh"} and "en/TFD001.ipynb" in ours
    assert theirs == ours


# ---- what is committed names no place of this machine -------------------------------------------

def _committed(*folders: str) -> dict[str, str]:
    names = _git("ls-files", "-z", "--", *folders).stdout.decode().split("\0")
    texts = {}
    for name in filter(None, names):
        try:
            texts[name] = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
    return texts


# A token that contains a path separator, in the text of a recorded field
_TOKEN = re.compile(r"[^\s\"'`()\[\]{},<>=]*/[^\s\"'`()\[\]{},<>=]*")
# The forms a path may take in a record (each what the normaliser emits, or not a file at all)
_RECORDED_PATH = re.compile(
    r"(snippets/TFD\d{3}/[\w.]+(:\d+)?:?"  # a snippet, relative to the checkout
    r"|…/lib/python\d\.\d+/\S+"  # a file of Python or of a package, wherever the interpreter lives
    r"|<tmpdir>\S*|<checkout>:?"  # the placeholders
    r"|https?://\S+"  # a link TensorFlow prints
    r"|/job:\w+(/replica:\d+)?/task:\d+(/device:[A-Z]+:[\dN]+)?:?(\\n:[\w:]*)?|/:?"  # a device or a task, a lone slash
    # (`/:` is Python's division operator in its TypeError: `unsupported operand type(s) for /:`)
    r"|/replica:\d+/task:\d+/device:[A-Z_]+:\d+"  # a device of a graph-mode strategy, named without its job
    r"|/(?:xla_)?(?:cpu|gpu):\d+"  # a device by its short name (Keras 2.3's multi_gpu_model lists `'/cpu:0', '/gpu:0'`)
    r"|/tensorflow\.[\w.]+/\w+:?(\\n:[\w:]*)?"  # a gRPC method a cluster error names: `/tensorflow.WorkerService/RecvBuf`,
    # `/tensorflow.eager.EagerService/Enqueue`
    # (newer gRPC follows it with an escaped line break and its status: `…/RecvBuf:\n:UNKNOWN:Error`)
    r"|/path/to/[\w/]+"  # the placeholder path of a hint TensorFlow prints (`--xla_dump_to=/path/to/dump/dir`)
    r"|\.\./[\w./-]+;?"  # relative to a cluster task's folder, shared by its tasks (`../shared-same-dir/...`)
    r"|external/[\w/.-]+\.(?:cc|h)"  # a source file of TensorFlow's own build (gRPC's `external/.../call.cc`)
    r"|[A-Za-z_]\w*_device_/job:\w+/replica:\d+/task:\d+/device:[A-Z]+:\d+"  # a function named after its device
    r"|[A-Za-z_][\w-]*(/[\w-]*)*(:\d+)?\}*\.?:?"  # an op, variable or node name: `dense/kernel/replica_1:0`
    r"|[a-z]+(/[a-z]+)+\.[A-Z][a-z]+"  # words, then the next sentence with no space: TF 2.x's `shards/workers.If`
    r")$")


def _unnormalised_paths(text: str) -> list[str]:
    return [token for token in _TOKEN.findall(text or "") if not _RECORDED_PATH.match(token)]


def test_every_recorded_path_is_of_a_form_the_normaliser_emits():
    """A recorded message, headline or printed output names a file only relative to the checkout or
    through a placeholder: never an absolute path, nor one that names a folder of this machine."""
    fields = [(record["snippet"], record["env"], field, record.get(field) or "")
              for record in evidence.load().values() for field in ("message", "headline", "stdout")]
    assert sum(len(_TOKEN.findall(text)) for *_, text in fields) > 1000  # the evidence holds paths, each checked
    odd = [(snippet, env, field, token) for snippet, env, field, text in fields for token in _unnormalised_paths(text)]
    assert not odd, odd[:20]


@pytest.mark.parametrize("path", [
    'File "/home/ci/kb/snippets/TFD014/x.py", line 29',  # absolute
    "[[node Assert/Assert (defined at work/main/snippets/TFD004/revived_dummy_call.py:82) ]]",  # TF 2.4, shortened
    "in converted code:\n    relative to /work/main:\n",  # TF 1.15
    "    .envs/tf1.15/lib/python3.7/site-packages/tensorflow_core/python/values.py:1016 _assign_func",
    'File "/root/.pyenv/versions/3.8.18/lib/python3.8/threading.py", line 3, in run',
    "Received: filepath=/tmp/tfdist-ab12cd34/tmp/model.keras",
])
def test_a_path_the_normaliser_would_have_removed_is_caught(path):
    assert _unnormalised_paths(path)
    assert not _unnormalised_paths(messages.normalise(path, Path("/work/main")))


def _places_of_this_machine(texts: dict[str, str]) -> list[tuple[str, str]]:
    """(file, place) for each file that names this checkout (absolute, or as TF 2.4 shortens it), this
    home folder, or this machine's name where a path, an address or a prompt would carry it
    (`/home/vm/`, `root@vm`, `vm:8000`)."""
    places = [str(ROOT)]
    if str(ROOT).count("/") > 1:  # `work/main/snippets/...`
        places.append(str(ROOT).lstrip("/"))
    if len(Path.home().parts) > 1:
        places.append(str(Path.home()) + "/")
    host = socket.gethostname().split(".")[0]
    named = re.compile(rf"(?:[/@]{re.escape(host)}(?=[/:\s]|$)|(?<![\w.-]){re.escape(host)}:\d)") if host else None
    found = [(name, place) for name, text in texts.items() for place in places if place in text]
    return found + [(name, host) for name, text in texts.items() if named and named.search(text)]


def test_no_committed_file_names_this_checkout_home_or_machine():
    texts = _committed("snippets", "docs", "tfdist/src/tfdist/data")
    assert "snippets/evidence.json" in texts and "tfdist/src/tfdist/data/errors.json" in texts
    assert _places_of_this_machine(texts) == []


@pytest.mark.parametrize("planted", [
    f'File "{ROOT}/snippets/TFD001/x.py", line 3',
    f"(defined at {str(ROOT).lstrip('/')}/snippets/TFD004/x.py:82)",
    f"saved to {Path.home()}/model.keras",
    f"{os.environ.get('USER', 'me')}@{socket.gethostname().split('.')[0]}:~$ tfdist doctor",
])
def test_a_place_of_this_machine_in_a_committed_file_is_caught(planted):
    assert _places_of_this_machine({"docs/e/TFD001.md": f"# TFD001\n\n```\n{planted}\n```\n"})
