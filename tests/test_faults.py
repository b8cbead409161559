"""Faults and interruptions: a killed `tfdist matrix` leaves no snippet running and no scratch
folder; a file cut short by a killed writer is never read as half a file (a cache record is run
again, a corrupt evidence file is one line naming it); a cache record that is not a whole record of
its run (`{}`) is a miss; a site build leaves no temporary folder; `make serve` on a taken port, a
closed pipe and a 100 kB bad argument each give one short line; so do a closed or full standard
output and a read-only or full snippets/ folder (the evidence left as it was); an environment holding
a package installed another way than its lock says (a path, URL, VCS, editable, a loose .pth) is refused."""
import glob
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tfdist_kb.commands import cli
from tfdist_kb.proof import envs, evidence, expect, files, runner

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
from tfdist_kb.proof import envs, expect, runner
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

def _whole_record(job):
    """A passing run's record as runner._execute writes it (every field it always has)."""
    return {"env": job.env.name, "snippet": job.rel, "sha256": runner.sha256(job.snippet), "date": "2026-01-01",
            "python": "3.11.7", "tensorflow": "2.15.1", "keras": None, "keras_package": "tf.keras",
            "devices": ["CPU:0", "CPU:1", "CPU:2", "CPU:3"], "outcome": "passed", "exception": None,
            "message": None, "headline": None, "replicas": 4, "ran_on": ["CPU:0", "CPU:1", "CPU:2", "CPU:3"],
            "reduction": None, "seconds": 1.0, "stdout": "x"}


@pytest.fixture
def cached_job(tmp_path, monkeypatch, default_env):
    """(job, its cache file, the runs really executed): the run itself is not what is tested here."""
    monkeypatch.setattr(runner, "CACHE", tmp_path / "runs")
    snippet = tmp_path / "s.py"
    snippet.write_text("print('x')\n")
    job = runner.Job(snippet, default_env, expect.Expectation("passes"))
    ran = []

    def execute(job, time_limit, may_hang=False, mode="fresh"):
        ran.append(job)
        return _whole_record(job)

    monkeypatch.setattr(runner, "_execute", execute)
    cached = runner.cache_path(job)
    cached.parent.mkdir(parents=True)
    return job, cached, ran


def test_truncated_cache_record_is_run_again_and_rewritten(cached_job):
    job, cached, ran = cached_job
    cached.write_text('{"snippet": "s.py", "outcome": "pas')  # a record cut short by a killed run
    record = runner.run(job)
    assert ran == [job] and record["outcome"] == "passed"
    assert json.loads(cached.read_text()) == record  # rewritten whole
    assert runner.run(job) == record and len(ran) == 1  # and a hit the next time


def _other_job(job):
    return dict(_whole_record(job), snippet="snippets/TFD001/build_optimizer_in_scope.py")


@pytest.mark.parametrize("content", [
    pytest.param(lambda job: {}, id="empty-object"),
    pytest.param(lambda job: [], id="a-list"),
    pytest.param(lambda job: {k: v for k, v in _whole_record(job).items() if k != "outcome"}, id="no-outcome"),
    pytest.param(lambda job: dict(_whole_record(job), outcome="exploded"), id="unknown-outcome"),
    pytest.param(lambda job: dict(_whole_record(job), outcome="raised"), id="raised-without-message"),
    pytest.param(_other_job, id="another-snippets-record"),
    pytest.param(lambda job: dict(_whole_record(job), env="tf1.15"), id="another-environments-record"),
    pytest.param(lambda job: dict(_whole_record(job), sha256="0" * 64), id="an-older-snippets-record"),
])
def test_malformed_cache_record_is_a_miss(cached_job, content):
    """A cache record holding `{}` (or any record that is not a whole record of this run) used to
    be returned as the run's record, and the matrix then failed with KeyError: it is run again."""
    job, cached, ran = cached_job
    cached.write_text(json.dumps(content(job)))
    record = runner.run(job)
    assert ran == [job] and record == dict(_whole_record(job), mode="fresh")
    assert json.loads(cached.read_text()) == record
    assert runner.run(job) == record and len(ran) == 1  # the rewritten record is a hit


def test_write_killed_between_write_and_rename_leaves_the_old_file(tmp_path):
    target = tmp_path / "evidence.json"
    files.write_atomic(target, '{"runs": []}\n')
    killed_at_fsync = ("import os, signal, sys\nfrom tfdist_kb.proof import files\n"
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


def test_write_into_a_folder_that_refuses_it_is_one_line_naming_the_file(tmp_path, monkeypatch):
    target = tmp_path / "evidence.json"
    files.write_atomic(target, "old\n")

    def read_only(*args, **kwargs):  # what a read-only folder (or mount) answers
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.tempfile, "mkstemp", read_only)
    with pytest.raises(files.WriteError) as raised:
        files.write_atomic(target, "new\n")
    assert str(raised.value) == f"cannot write {target}: Permission denied (the file is unchanged)"
    assert isinstance(raised.value, OSError) and target.read_text() == "old\n"


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
    build = ("import sys\nfrom pathlib import Path\nfrom tfdist_kb.proof import evidence\n"
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
    return subprocess.run([sys.executable, "-m", "tfdist_kb.commands.serve_port", port], cwd=ROOT,
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
    check = next(i for i, line in enumerate(lines) if "tfdist_kb.commands.serve_port '8123'" in line)
    assert "mkdocs serve -a '127.0.0.1:8123'" in lines[check + 1]  # checked, then served, on that port
    default = subprocess.run(["make", "-n", "serve"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "tfdist_kb.commands.serve_port '8000'" in default and "-a '127.0.0.1:8000'" in default


def test_make_serve_sends_text_compressed_as_a_host_does(tmp_path):
    """MkDocs' development server (what `make serve` runs) behind the site's compress hook: a page
    and a script travel gzip-compressed to a browser that accepts it, a small file and an image as
    they are, and the page still carries the live-reload script MkDocs injects."""
    import gzip
    import threading
    import urllib.request

    from mkdocs.livereload import LiveReloadServer

    from tfdist_kb.site import compress

    assert "  - tfdist_kb/site/compress.py\n" in (ROOT / "mkdocs.yml").read_text()  # one of the site's hooks
    page = "<html><body>" + "<p>MirroredStrategy</p>" * 200 + "</body></html>"
    (tmp_path / "index.html").write_text(page)
    (tmp_path / "app.js").write_text("var x = 1;\n" * 300)
    (tmp_path / "small.css").write_text("p { color: red }")
    (tmp_path / "image.png").write_bytes(b"\x89PNG" + bytes(4000))
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    server.watch(str(tmp_path))  # as mkdocs serve does: the pages get the live-reload script
    server = compress.on_serve(server, config=None, builder=None)
    server.server_bind()  # what LiveReloadServer.serve() does first, without its rebuild loop
    server.server_activate()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"

        def get(path):
            request = urllib.request.Request(base + path, headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.headers.get("Content-Encoding"), answer.read()

        encoding, body = get("")
        assert encoding == "gzip" and "livereload" in gzip.decompress(body).decode()
        assert gzip.decompress(body).decode().startswith("<html><body><p>MirroredStrategy</p>")
        encoding, body = get("app.js")
        assert encoding == "gzip" and gzip.decompress(body) == (tmp_path / "app.js").read_bytes()
        assert get("small.css") == (None, b"p { color: red }")
        assert get("image.png") == (None, (tmp_path / "image.png").read_bytes())
    finally:
        server.shutdown()


# ---- the command line: a closed pipe, a huge bad argument -----------------------------------------

def _python37():
    try:
        return str(envs.find_interpreter("3.7"))  # pyenv (PYENV_ROOT honoured) or PATH, as the environments find it
    except envs.EnvError:
        return None


PYTHONS = [pytest.param(sys.executable, id="3.11"),
           pytest.param(_python37(), id="3.7", marks=pytest.mark.skipif(not _python37(), reason="no Python 3.7"))]


def _package_environ():
    """The environment of `python -m tfdist`: the package from the source tree, stdout block-buffered."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    environ["PYTHONPATH"] = os.pathsep.join([str(PACKAGE), str(ROOT)])
    return environ


def _tfdist(python, args, **kwargs):
    """`python -m tfdist ARGS`, the package from the source tree, stdout block-buffered as in a pipeline."""
    environ = _package_environ()
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
    assert _with_reader_gone(python, args) == (141, "")


# Made in a process of its own: a pipe whose read end is closed, `python -m tfdist ARGS` writing to it.
# Not in pytest's process, whose other threads may fork (a server, a pool) while the read end is still
# open: the forked child keeps a reader alive, the write succeeds, and the exit status says 0 (seen
# once in CI, on Python 3.7 `--help`).
_READER_GONE = """
import json, os, subprocess, sys
read_end, write_end = os.pipe()
os.close(read_end)
process = subprocess.Popen(json.loads(sys.argv[1]), stdout=write_end, stderr=subprocess.PIPE)
os.close(write_end)
err = process.stderr.read().decode()
print(json.dumps([process.wait(), err]))
"""


def _with_reader_gone(python, args):
    """Exit status and standard error of `python -m tfdist ARGS` whose stdout is a pipe nobody reads.

    The read end is closed before the process starts, so its first write always meets a broken pipe
    (closing it after the start races a short output that fits the pipe's buffer)."""
    environ = _package_environ()
    command = [python, "-m", "tfdist"] + args
    done = subprocess.run([sys.executable, "-c", _READER_GONE, json.dumps(command)], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    status, err = json.loads(done.stdout)
    return status, err


def test_closed_pipe_is_quiet_for_the_knowledge_base_commands():
    assert _with_reader_gone(sys.executable, ["run", "--help"]) == (141, "")


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
    # a long paste is a legitimate question: only echoes of bad input are capped. Its last line is
    # a message a TFD001 snippet really raised (from the shipped index), as `tfdist explain` shows it.
    shipped = json.loads((PACKAGE / "tfdist" / "data" / "errors.json").read_text(encoding="utf-8"))
    run = next(r for e in shipped["entries"] if e["id"] == "TFD001" for r in e.get("reproduced") or [])
    paste = "Traceback (most recent call last):\n" + '  File "x.py", line 1, in <module>\n' * 3000 + \
        f"{run['exception']}: {run['headline']}"
    done = _run_tfdist(sys.executable, ["explain", paste])
    assert done.returncode == 0 and done.stdout.startswith(b"TFD001  ") and done.stderr == b""


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


# ---- an environment with a package installed some other way than its lock says -----------------

def _wheel(folder: Path, name: str, version: str, files: dict) -> Path:
    """A wheel file made here (no build backend, no network): `files` and its metadata."""
    import base64
    import hashlib
    import zipfile

    info = f"{name.replace('-', '_')}-{version}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    entries[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(text.encode())}" for path, text in entries.items()]
    entries[f"{info}/RECORD"] = "\n".join(record + [f"{info}/RECORD,,"]) + "\n"
    wheel = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in entries.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def tiny_env(tmp_path, monkeypatch):
    """A throwaway one-package environment (six from the index, as its lock pins), built the way
    `tfdist envs` builds the pinned ones; the shared .envs/ are not touched."""
    pins = tmp_path / "pins"
    pins.mkdir()
    (pins / "tiny.txt").write_text("six==1.16.0\n")
    (pins / "envs.toml").write_text('[[env]]\nname = "tiny"\npython = "3.11"\nabout = "a one-package environment"\n')
    monkeypatch.setattr(envs, "PINS", pins)
    monkeypatch.setattr(envs, "HOME", tmp_path / "envs")
    monkeypatch.setattr(envs, "ROOT", tmp_path)  # `tfdist envs` names it relative to the checkout
    monkeypatch.setattr(envs, "_checked", {})
    env = envs.load()[0]
    envs.ensure(env, log=lambda *a: None)
    return env


def _install(env, *args):
    subprocess.run([envs.uv(), "pip", "install", "-q", "--offline", "--python", str(env.interpreter), *args],
                   check=True, capture_output=True, timeout=120)


def _refused(env, capsys, says: str):
    """`tfdist envs NAME` refuses the environment in one line naming the difference and the rebuild."""
    assert cli.main(["envs", env.name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"tfdist: environment {env.name}: what is installed differs from its lock file: ")
    assert says in err and err.rstrip().endswith(f"rebuild it with: tfdist envs {env.name} --rebuild"), err
    with pytest.raises(envs.EnvError):  # and no run starts there (the runner's cache key checks it first)
        envs.installed_fingerprint(env)
    # what the message says to do, works
    assert cli.main(["envs", env.name, "--rebuild"]) == 0
    assert {n: str(d) for n, d in envs.distributions(env).items()} == {"six": "1.16.0"}


def test_pinned_package_installed_from_a_path_is_refused(tiny_env, tmp_path, capsys):
    """`uv pip freeze` prints `six @ file:///...`: the same name and version as the lock, from a path."""
    wheel = _wheel(tmp_path, "six", "1.16.0", {"six.py": "PY3 = True\n"})
    _install(tiny_env, "--reinstall", str(wheel))
    assert envs.installed(tiny_env) == {"six": "1.16.0"}  # name and version alone would pass
    _refused(tiny_env, capsys, f"six 1.16.0 installed from {wheel.as_uri()} (pinned 1.16.0, from the index)")


def test_unpinned_package_installed_from_a_path_is_refused(tiny_env, tmp_path, capsys):
    wheel = _wheel(tmp_path, "extra-thing", "0.1", {"extra_thing.py": ""})
    _install(tiny_env, str(wheel))
    _refused(tiny_env, capsys, f"extra-thing 0.1 installed from {wheel.as_uri()} (not pinned)")


def _fake_install(env, name, version, direct_url=None, files=()):
    """What an installer leaves for a distribution (its .dist-info, and direct_url.json per PEP 610
    for one from a path, URL or VCS): for the kinds of install that need a build or a network."""
    site = envs.site_packages(env)[0]
    info = site / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in files) + f"{info.name}/RECORD,,\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    for f in files:
        (site / f).write_text("/home/me/checkout\n")  # an editable install's .pth: the folder it puts on sys.path


@pytest.mark.parametrize("name, version, direct_url, files, says", [
    ("six", "1.16.0", {"url": "file:///home/me/six", "dir_info": {"editable": True}},
     ("__editable__.six-1.16.0.pth",), "six 1.16.0 installed from file:///home/me/six (editable) (pinned 1.16.0, from the index)"),
    ("six", "1.16.0", {"url": "https://github.com/benjaminp/six", "vcs_info": {"vcs": "git", "commit_id": "65486e4"}},
     (), "six 1.16.0 installed from git+https://github.com/benjaminp/six@65486e4 (pinned 1.16.0, from the index)"),
    ("six", "1.16.0", {"url": "https://example.org/six-1.16.0-py2.py3-none-any.whl", "archive_info": {}}, (),
     "six 1.16.0 installed from https://example.org/six-1.16.0-py2.py3-none-any.whl (pinned 1.16.0, from the index)"),
    ("tfdist", "0.1.0", {"url": "file:///work/tfdist", "dir_info": {"editable": True}}, ("__editable__.tfdist-0.1.0.pth",),
     "tfdist 0.1.0 installed from file:///work/tfdist (editable) (not pinned)"),
], ids=["editable", "vcs", "url", "the-projects-own-package-editable"])
def test_package_installed_from_a_path_url_vcs_or_editable_is_refused(tiny_env, capsys, name, version, direct_url,
                                                                       files, says):
    if name == "six":  # the pinned one goes, and comes back another way
        subprocess.run([envs.uv(), "pip", "uninstall", "-q", "--python", str(tiny_env.interpreter), "six"], check=True)
    _fake_install(tiny_env, name, version, direct_url, files)
    _refused(tiny_env, capsys, says)


def test_folder_put_on_sys_path_by_a_pth_file_is_refused(tiny_env, capsys):
    """Not a distribution at all: a .pth file that no package installed puts a folder on sys.path."""
    pth = envs.site_packages(tiny_env)[0] / "my-checkout.pth"
    pth.write_text("/home/me/checkout\n")
    _refused(tiny_env, capsys, f"my-checkout.pth (a .pth file that no package installed: {pth})")


def test_pinned_environments_hold_only_their_locks():
    """Every built pinned environment passes the whole comparison (the project never installs its
    own tfdist into one: tests put tfdist/src on PYTHONPATH for the one process)."""
    built = [env for env in envs.load() if envs.is_ready(env)]
    if not built:
        pytest.skip("no environment is built")
    for env in built:
        have = envs.check_pins(env)
        assert set(have) == set(env.pins()) and not any(d.source for d in have.values()), env.name


# ---- standard output closed or on a full disk ------------------------------------------------------

def _tfdist_with_stdout(python, args, stdout: str):
    """`python -m tfdist ARGS` with its standard output closed (`>&-`) or on a full disk (`> /dev/full`)."""
    environ = _package_environ()
    redirect = ">&-" if stdout == "closed" else "> /dev/full"
    command = " ".join(["exec", shlex.quote(python), "-m", "tfdist"] + [shlex.quote(a) for a in args] + [redirect])
    return subprocess.run(["sh", "-c", command], cwd=ROOT, env=environ, capture_output=True, timeout=120)


UNWRITABLE = [
    pytest.param("closed", "tfdist: standard output is closed: nothing was done (to discard the output, send it to "
                 "/dev/null)\n", id="closed"),
    pytest.param("full", "tfdist: cannot write to standard output: No space left on device\n", id="full",
                 marks=pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")),
]


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("args", [["explain", "TFD001"], ["explain", "--json", "TFD001"], ["--help"],
                                  ["explain", "--help"]])
@pytest.mark.parametrize("stdout, says", UNWRITABLE)
def test_output_that_cannot_be_written_is_one_line(python, args, stdout, says):
    done = _tfdist_with_stdout(python, args, stdout)
    assert (done.returncode, done.stderr.decode()) == (74, says)


@pytest.mark.parametrize("stdout, says", UNWRITABLE)
def test_output_that_cannot_be_written_is_one_line_for_the_knowledge_base_commands(stdout, says):
    done = _tfdist_with_stdout(sys.executable, ["run", "--help"], stdout)
    assert (done.returncode, done.stderr.decode()) == (74, says)


# ---- `tfdist matrix` with a snippets/ folder it cannot write ----------------------------------------

# `tfdist matrix --snippets TFD001` whose evidence file is a copy in another folder; the runs are
# those recorded (the matrix's runs are not what is tested here): argv[1] the copy, argv[2] 'ran' if
# the runs may be "made" (else any run fails the test) or 'read-only'; argv[3]: the disk is full.
MATRIX_ON_A_COPY = """\
import json, os, sys
from pathlib import Path
from tfdist_kb.commands import cli
from tfdist_kb.proof import envs, evidence, runner
path = Path(sys.argv[1])
evidence.PATH = path
for function in (evidence.load, evidence.locked.__wrapped__, evidence.save):
    function.__defaults__ = (path,)
recorded = evidence.load()
if sys.argv[2] == "read-only" and os.geteuid() == 0:  # root may write into a read-only folder: as if it were not
    opened = os.open
    def read_only(name, flags, *args, **kwargs):
        if str(name).startswith(str(path.parent)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(13, "Permission denied", str(name))
        return opened(name, flags, *args, **kwargs)
    os.open = read_only

def run_matrix(selected, use_cache=True, files=None, mode="fresh"):
    if sys.argv[2] != "ran":
        sys.exit("the matrix ran although its evidence cannot be written")
    jobs = runner.jobs(selected, files)
    return jobs, {(j.rel, j.env.name): recorded[(j.rel, j.env.name)] for j in jobs}, 0.0

runner.run_matrix = run_matrix
if len(sys.argv) > 3:  # a full disk: every write of a file's contents fails
    def full(fd):
        raise OSError(28, "No space left on device")
    os.fsync = full
sys.exit(cli.main(["matrix", "--envs", "default", "--snippets", "TFD001"]))
"""


def _snippets_copy(tmp_path):
    folder = tmp_path / "snippets"
    folder.mkdir()
    shutil.copy2(evidence.PATH, folder / "evidence.json")
    return folder, (folder / "evidence.json").read_bytes()


def test_matrix_with_a_read_only_snippets_folder_is_one_line_before_any_run(tmp_path):
    folder, before = _snippets_copy(tmp_path)
    folder.chmod(0o555)  # (as root, which may write there anyway, the driver refuses the writes itself)
    try:
        done = subprocess.run([sys.executable, "-c", MATRIX_ON_A_COPY, str(folder / "evidence.json"), "read-only"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        folder.chmod(0o755)
    assert done.returncode == 1 and done.stderr == f"tfdist: cannot create a file in {folder}: Permission denied (nothing was done)\n", done.stderr[-2000:]
    assert (folder / "evidence.json").read_bytes() == before and [p.name for p in folder.iterdir()] == ["evidence.json"]


def test_matrix_on_a_full_disk_is_one_line_and_leaves_the_evidence(tmp_path):
    folder, before = _snippets_copy(tmp_path)
    done = subprocess.run([sys.executable, "-c", MATRIX_ON_A_COPY, str(folder / "evidence.json"), "ran", "full"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    says = f"tfdist: cannot write {folder / 'evidence.json'}: No space left on device (the file is unchanged)\n"
    assert done.returncode == 1 and done.stderr == says, done.stderr[-2000:]
    assert (folder / "evidence.json").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [".evidence.json.lock", "evidence.json"]  # no temporary file
