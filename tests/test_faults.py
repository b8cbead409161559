"""Faults and interruptions: a killed `tfdist matrix` leaves no snippet running and no scratch
folder; a file cut short by a killed writer is never read as half a file (a cache record is run
again, a corrupt evidence file is one line naming it); a site build leaves no temporary folder;
`make serve` on a taken port, a closed pipe and a 100 kB bad argument each give one short line."""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tfdist_kb import cli, envs, evidence, expect, files, runner

ROOT = runner.ROOT
PACKAGE = ROOT / "tfdist" / "src"
BIG = 100 * 1024  # bytes of a pasted bad argument (one argument may hold up to 128 kB)


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def _marked(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (a zombie's is empty: it no longer runs)."""
    found = []
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(cmdline, "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(cmdline.split("/")[2]))
        except OSError:  # ended meanwhile
            pass
    return found


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


# ---- a killed runner --------------------------------------------------------------------------

HANGING = """\
import os, subprocess, sys, tempfile, time
keep = tempfile.NamedTemporaryFile(delete=False)  # the snippet's own temporary file: in its TMPDIR
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {marker!r}])
open({ready!r}, "w").write(keep.name)
time.sleep(600)
"""

DRIVER = """\
import sys
from pathlib import Path
from tfdist_kb import envs, expect, runner
job = runner.Job(Path(sys.argv[1]), envs.default(), expect.Expectation("passes"))
runner.run(job, use_cache=False, time_limit=600)
"""


def test_killed_runner_leaves_no_snippet_running_and_no_scratch_folder(tmp_path, default_env):
    marker = f"tfdist-fault-{uuid.uuid4().hex}"
    ready, temporary = tmp_path / "ready", tmp_path / "tmp"
    temporary.mkdir()
    snippet = tmp_path / f"{marker}.py"
    snippet.write_text(HANGING.format(marker=marker, ready=str(ready)))
    # `tfdist matrix` as far as this matters: a process running a snippet through the runner
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(snippet)], cwd=ROOT,
                              env=dict(os.environ, TMPDIR=str(temporary)))
    try:
        assert _wait_for(lambda: ready.exists() and ready.read_text(), 120), "the snippet never started"
        snippet_tmp = Path(ready.read_text())
        assert snippet_tmp.exists() and snippet_tmp.is_relative_to(temporary)
        # the runner, the child running the snippet, and the process the snippet started
        assert driver.pid in _marked(marker) and len(_marked(marker)) == 3
        assert [p.name for p in temporary.iterdir() if p.name.startswith("tfdist-")]
        driver.kill()  # SIGKILL: the runner cleans nothing up itself
        driver.wait()
        assert _wait_for(lambda: not _marked(marker), 5), f"still running: {_marked(marker)}"
        assert _wait_for(lambda: not list(temporary.iterdir()), 5), \
            f"left behind: {[p.name for p in temporary.iterdir()]}"
    finally:
        driver.kill()
        for pid in _marked(marker):  # only what this test started
            os.kill(pid, signal.SIGKILL)


# ---- files cut short --------------------------------------------------------------------------

def test_truncated_cache_record_is_run_again_and_rewritten(tmp_path, monkeypatch, default_env):
    monkeypatch.setattr(runner, "CACHE", tmp_path / "runs")
    snippet = tmp_path / "s.py"
    snippet.write_text("print('x')\n")
    job = runner.Job(snippet, default_env, expect.Expectation("passes"))
    ran = []

    def execute(job, time_limit, may_hang=False, mode="fresh"):  # the run itself is not what is tested here
        ran.append(job)
        return {"snippet": job.rel, "outcome": "passed", "stdout": "x"}

    monkeypatch.setattr(runner, "_execute", execute)
    cached = runner.cache_path(job)
    cached.parent.mkdir(parents=True)
    cached.write_text('{"snippet": "s.py", "outcome": "pas')  # a record cut short by a killed run
    record = runner.run(job)
    assert ran == [job] and record["outcome"] == "passed"
    assert json.loads(cached.read_text()) == record  # rewritten whole
    assert runner.run(job) == record and len(ran) == 1  # and a hit the next time


def test_write_killed_between_write_and_rename_leaves_the_old_file(tmp_path):
    target = tmp_path / "evidence.json"
    files.write_atomic(target, '{"runs": []}\n')
    killed_at_fsync = ("import os, signal, sys\nfrom tfdist_kb import files\n"
                       "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)\n"
                       "files.write_atomic(sys.argv[1], '{\"runs\": [' + '0, ' * 100000 + '0]}')\n")
    done = subprocess.run([sys.executable, "-c", killed_at_fsync, str(target)], cwd=ROOT)
    assert done.returncode == -signal.SIGKILL
    assert target.read_text() == '{"runs": []}\n'


def test_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    target = tmp_path / "errors.json"
    files.write_atomic(target, "old\n")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        files.write_atomic(target, "new\n" * 1000)
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["errors.json"]


@pytest.fixture
def corrupt_evidence(tmp_path, monkeypatch):
    bad = tmp_path / "evidence.json"
    bad.write_text('{"generated_by": "tfdist matrix (make matrix)", "runs": [{"snippet": "snippets/TFD0')
    monkeypatch.setattr(evidence.load, "__defaults__", (bad,))
    return bad


def test_corrupt_evidence_stops_the_matrix_with_one_line_naming_it(corrupt_evidence, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_all", lambda *a, **k: pytest.fail("the matrix ran on a corrupt evidence file"))
    assert cli.main(["matrix", "--envs", "default"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"tfdist: {corrupt_evidence}: not a readable evidence file (JSONDecodeError")


def test_corrupt_evidence_stops_the_site_build_with_one_line_naming_it(corrupt_evidence, tmp_path):
    build = ("import sys\nfrom pathlib import Path\nfrom tfdist_kb import evidence\n"
             "evidence.load.__defaults__ = (Path(sys.argv[1]),)\n"
             "from mkdocs.__main__ import cli\n"
             "cli(['build', '--site-dir', sys.argv[2]])\n")
    done = subprocess.run([sys.executable, "-c", build, str(corrupt_evidence), str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and f"{corrupt_evidence}: not a readable evidence file" in errors[0]


# ---- temporary folders of a site build --------------------------------------------------------

def test_site_build_leaves_no_temporary_folder(tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)], cwd=ROOT,
                          env=dict(os.environ, TMPDIR=str(temporary)), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    # what the build's temporary folder held is published
    assert json.loads((site / "errors.json").read_text())["entries"]
    assert (site / "assets" / "tfdist" / "signatures.js").stat().st_size > 0
    assert [p.name for p in temporary.iterdir() if p.name.startswith("tfdist")] == []


# ---- make serve on a taken port -----------------------------------------------------------------

def _port_check(port: str):
    return subprocess.run([sys.executable, "-m", "tfdist_kb.serve_port", port], cwd=ROOT,
                          capture_output=True, text=True)


def test_serve_on_a_taken_port_is_one_line_naming_a_free_one():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _port_check(str(port))
        assert done.returncode == 1 and done.stdout == ""
        prefix = f"make serve: port {port} is in use; choose another: make serve PORT="
        assert done.stderr.startswith(prefix) and done.stderr.count("\n") == 1
        other = int(done.stderr[len(prefix):])
        assert other != port and _port_check(str(other)).returncode == 0
    assert _port_check(str(port)).returncode == 0  # free again


@pytest.mark.parametrize("port", ["eighty", "0", "70000", "8000x", "9" * 5000])
def test_serve_port_that_is_no_port_is_one_line(port):
    done = _port_check(port)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and len(done.stderr) < 120
    assert done.stderr.startswith("make serve: PORT must be a number from 1 to 65535")


def test_make_serve_passes_its_port_through():
    if not shutil.which("make"):
        pytest.skip("no make")
    done = subprocess.run(["make", "-n", "serve", "PORT=8123"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    check = next(i for i, line in enumerate(lines) if "tfdist_kb.serve_port '8123'" in line)
    assert "mkdocs serve -a '127.0.0.1:8123'" in lines[check + 1]  # checked, then served, on that port
    default = subprocess.run(["make", "-n", "serve"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "tfdist_kb.serve_port '8000'" in default and "-a '127.0.0.1:8000'" in default


# ---- the command line: a closed pipe, a huge bad argument -----------------------------------------

def _python37():
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.7*/bin/python3.7")))
    return found[-1] if found else shutil.which("python3.7")


PYTHONS = [pytest.param(sys.executable, id="3.11"),
           pytest.param(_python37(), id="3.7", marks=pytest.mark.skipif(not _python37(), reason="no Python 3.7"))]


def _tfdist(python, args, **kwargs):
    """`python -m tfdist ARGS`, the package from the source tree, stdout block-buffered as in a pipeline."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    environ["PYTHONPATH"] = os.pathsep.join([str(PACKAGE), str(ROOT)])
    return subprocess.Popen([python, "-m", "tfdist"] + args, cwd=ROOT, env=environ, stderr=subprocess.PIPE, **kwargs)


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("args", [["explain", "TFD001"], ["explain", "--json", "TFD001"], ["--help"],
                                  ["explain", "--help"]])
def test_closed_pipe_is_quiet(python, args):
    # `tfdist explain TFD001 | head -c 10`: the reader takes 10 bytes and goes
    process = _tfdist(python, args, stdout=subprocess.PIPE)
    assert len(process.stdout.read(10)) == 10
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait() == 0 and err == ""
    # the reader is gone before anything is written: a broken pipe, exit 141 as after SIGPIPE
    process = _tfdist(python, args, stdout=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait() == 141 and err == ""


def test_closed_pipe_is_quiet_for_the_knowledge_base_commands():
    process = _tfdist(sys.executable, ["run", "--help"], stdout=subprocess.PIPE)
    process.stdout.close()
    assert process.wait() == 141 and process.stderr.read() == b""


def _one_short_line(done, status):
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == status, err[-500:]
    assert err.count("\n") == 1 and err.endswith("\n") and len(done.stderr) < 300, err[:600]
    assert "Traceback" not in err
    return err


def _run_tfdist(python, args, stdin=None):
    process = _tfdist(python, args, stdout=subprocess.PIPE, stdin=subprocess.PIPE)
    out, err = process.communicate(stdin)
    return subprocess.CompletedProcess(args, process.returncode, out, err)


GARBAGE = "x" * BIG
SPACED = "garbage " * (BIG // 8)


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("args, status, says", [
    (["explain", "TFD999"], 2, "TFD999 is not a known entry; known: TFD001"),
    (["explain", ""], 2, "nothing to explain: the input is empty"),
    (["explain", "TFD" + "1" * BIG], 2, f"... ({BIG + 5} characters) is not an entry ID"),
    (["explain", "--" + GARBAGE], 2, "unknown option '--xxx"),
    (["explain", "--file", "/nonexistent/" + GARBAGE], 2, "cannot read '/nonexistent/xxx"),
    (["explain", "--file"], 2, "--file needs a path"),
    (["explain", GARBAGE], 1, "no entry matches this text"),
    (["explain", SPACED], 1, "no entry matches this text"),
])
def test_explain_bad_input_is_one_short_line(python, args, status, says):
    err = _one_short_line(_run_tfdist(python, args), status)
    assert err.startswith("tfdist: ") and says in err


def test_explain_binary_file_is_one_short_line(tmp_path):
    binary = tmp_path / ("b" * 200 + ".bin")
    binary.write_bytes(bytes(range(256)) * 400)
    err = _one_short_line(_run_tfdist(sys.executable, ["explain", "--file", str(binary)]), 2)
    assert "is binary (it has NUL bytes)" in err and f"({len(str(binary))} characters)" in err


def test_explain_long_matching_traceback_is_still_an_answer():
    # a long paste is a legitimate question: only echoes of bad input are capped
    paste = "Traceback (most recent call last):\n" + '  File "x.py", line 1, in <module>\n' * 3000 + \
        "ValueError: Trying to create optimizer slot variable under the scope for tf.distribute.Strategy"
    done = _run_tfdist(sys.executable, ["explain", paste])
    assert done.returncode == 0 and b"TFD001" in done.stdout and done.stderr == b""


@pytest.mark.parametrize("args, says", [
    ([GARBAGE], "tfdist: argument command: invalid choice: 'xxx"),
    (["run", GARBAGE], "tfdist: no such snippet file: 'xxx"),
    (["run", "snippets/TFD001/no_such_snippet.py"], "tfdist: no such snippet file: 'snippets/TFD001/no_such_snippet.py'"),
    (["matrix", "--envs", GARBAGE], "tfdist: unknown environment 'xxx"),
    (["run", "snippets/TFD001/build_optimizer_in_scope.py", "--env", "tf9.9"], "tfdist: unknown environment 'tf9.9'"),
    (["matrix", "--no-such-option", GARBAGE], "tfdist: unrecognized arguments: --no-such-option xxx"),
    (["matrix", "--no-such-option", SPACED], "tfdist: unrecognized arguments: --no-such-option garbage"),
    (["run"], "tfdist run: the following arguments are required: snippet (see tfdist run --help)"),
])
def test_knowledge_base_bad_arguments_are_one_short_line(args, says):
    err = _one_short_line(_run_tfdist(sys.executable, args), 2)
    assert err.startswith(says)
