"""The fast mode (a pre-imported TensorFlow forking one child per run) gives what a fresh process
gives, and survives what a snippet can do to it: crash, exit, hang, fill memory, or its runner dying."""
import glob
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tfdist_kb.proof import envs, evidence, expect, forkpool, runner
from tfdist_kb.commands import pytest_plugin

ROOT = runner.ROOT
pytestmark = pytest.mark.matrix
# The environments whose snippets run in both modes here (`make test` also compares each fork run of
# every environment with the evidence, which fresh processes recorded). TFDIST_EQUIVALENCE=all: every
# snippet (the weekly drift workflow); otherwise the sample of this commit (equivalence_sample).
EQUIVALENCE_ENVS = os.environ.get("TFDIST_EQUIVALENCE_ENVS") or "default"
EQUIVALENCE = os.environ.get("TFDIST_EQUIVALENCE") or "sample"
SAMPLE_SIZE = 10  # about this many snippets per commit: K = ceil(snippets / SAMPLE_SIZE) commits cover them all


def _git(*args) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def equivalence_sample(files: list[Path]) -> tuple[list[Path], str]:
    """The snippets compared in both modes on this commit, and how they were chosen: of the sorted
    snippet files, those whose index i has i % K == n % K, K = ceil(len / SAMPLE_SIZE), n the number of
    commits up to HEAD (`git rev-list --count HEAD`), so K consecutive commits cover every snippet. In
    a shallow clone (CI's checkout) n is HEAD's hash read as a number instead (still one rotating sample
    per commit); without git, n = 0."""
    k = max(1, -(-len(files) // SAMPLE_SIZE))
    if _git("rev-parse", "--is-shallow-repository") == "false" and (count := _git("rev-list", "--count", "HEAD")):
        n, why = int(count), f"commit count {count}"
    elif head := _git("rev-parse", "HEAD"):
        n, why = int(head[:12], 16), f"shallow clone: HEAD {head[:12]} as a number"
    else:
        n, why = 0, "no git history: n = 0"
    chosen = [f for i, f in enumerate(files) if i % k == n % k]
    return chosen, f"snippets i with i % {k} == {n % k} ({why}); TFDIST_EQUIVALENCE=all for every one"


def equivalence_files() -> tuple[list[Path], str]:
    files = runner.snippet_files()
    if EQUIVALENCE == "all":
        return files, "every snippet (TFDIST_EQUIVALENCE=all)"
    if EQUIVALENCE != "sample":
        pytest.fail(f"TFDIST_EQUIVALENCE: {EQUIVALENCE[:40]!r} is neither 'sample' nor 'all'")
    return equivalence_sample(files)


STRATEGY = ("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
            "strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)\n")
PASSES = '# /// tfdist\n# [expect]\n# default = "passes"\n# ///\n'


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def snippet(tmp_path, code, header=PASSES, name=None):
    path = tmp_path / (name or f"s{uuid.uuid4().hex[:8]}.py")
    path.write_text(header + code)
    return path


def forked(path, env, **kwargs):
    return runner.run(runner.Job(path, env, expect.Expectation("passes")), use_cache=False, mode="fork", **kwargs)


@pytest.mark.parametrize("env", envs.select(EQUIVALENCE_ENVS), ids=lambda e: e.name)
def test_every_snippet_gives_the_same_record_forked_and_fresh(env, request):
    """Outcome, exception, whole message, output and devices, run by run (the cache keeps both modes
    apart), for the snippets of this commit's sample (equivalence_sample) or all of them."""
    chosen, how = equivalence_files()
    names = [f"{p.parent.name}/{p.name}" for p in chosen]
    sample = f"{len(chosen)} snippet(s) on {env.name}, {how}: {', '.join(names)}"
    pytest_plugin.note(request.config, f"fork/fresh equivalence: {sample}")
    _, fresh, _ = runner.run_matrix([env], use_cache=True, files=chosen, mode="fresh")
    _, fork, _ = runner.run_matrix([env], use_cache=True, files=chosen, mode="fork")
    assert fresh.keys() == fork.keys(), sample
    broken = {k: str(r) for k, r in list(fresh.items()) + list(fork.items()) if isinstance(r, Exception)}
    assert not broken, (sample, broken)
    ran = [k for k, r in fork.items() if r["outcome"] != "not-applicable"]
    assert chosen and all(fork[k]["mode"] == "fork" or expect.fresh_process(ROOT / k[0])
                          or expect.tensorflow_log(ROOT / k[0]) for k in ran), sample
    assert all(fresh[k]["mode"] == "fresh" for k in ran), sample
    declared = {k: runner.expectations(ROOT / k[0])[env.name].exceptions for k in ran}  # interchangeable ones
    # every field the evidence compares, the whole message and its headline exactly as recorded
    differ = {k[0]: found for k in ran if (found := evidence.differences(fresh[k], fork[k], declared[k]))}
    assert not differ, (sample, differ)


def test_the_equivalence_sample_rotates_and_covers_every_snippet(monkeypatch):
    files = [Path(f"s{i:02}.py") for i in range(75)]
    counts = iter(range(200, 240))
    monkeypatch.setattr(sys.modules[__name__], "_git", lambda *a: "false" if "--is-shallow-repository" in a
                        else str(next(counts)) if "--count" in a else None)
    samples = [equivalence_sample(files)[0] for _ in range(8)]
    assert all(8 <= len(s) <= 10 for s in samples) and sorted(sum(samples, [])) == files
    assert "commit count 208" in equivalence_sample(files)[1]
    monkeypatch.setattr(sys.modules[__name__], "_git", lambda *a: None)
    assert equivalence_sample(files) == (files[::8], equivalence_sample(files)[1])
    assert "no git history" in equivalence_sample(files)[1]


def test_a_fork_sees_what_a_fresh_process_sees(tmp_path, default_env):
    """Environment variables (those the import of TensorFlow sets included), the working and
    temporary folders, the command line, the main module's name, the devices and Keras' state."""
    code = STRATEGY + (
        "import os, sys, tempfile\n"
        "print(sorted((k, v) for k, v in os.environ.items() if k != 'TMPDIR'))\n"
        "print(os.path.basename(os.getcwd()).startswith('tfdist-'), tempfile.gettempdir() == os.path.join(os.getcwd(), 'tmp'))\n"
        "print(sys.argv == [__file__], __name__)\n"
        "print(len(tf.config.list_logical_devices('CPU')), tf.executing_eagerly())\n"
        "print(tf.keras.backend.floatx(), tf.keras.layers.Dense(1).name)\n")
    path = snippet(tmp_path, code)
    fresh = runner.run(runner.Job(path, default_env, expect.Expectation("passes")), use_cache=False)
    fork = forked(path, default_env)
    assert fork["mode"] == "fork" and fresh["mode"] == "fresh"
    assert fork["stdout"] == fresh["stdout"]
    assert "True True\nTrue __main__\n4 True" in fork["stdout"]


@pytest.mark.parametrize("code, said", [
    ("import ctypes\nctypes.string_at(0)\n", "killed by SIGSEGV"),
    ("import os\nos._exit(3)\n", "exit status 3"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "killed by SIGKILL"),
])
def test_a_crashing_child_is_a_clear_error_and_the_server_lives_on(tmp_path, default_env, code, said):
    with pytest.raises(runner.RunnerError, match=f"ended \\({said}\\) without a result"):
        forked(snippet(tmp_path, STRATEGY + "print('before', flush=True)\n" + code), default_env)
    after = forked(snippet(tmp_path, STRATEGY), default_env)  # the same pre-imported process, still serving
    assert after["outcome"] == "passed" and after["replicas"] == 4


def test_a_hanging_child_is_stopped_at_its_limit(tmp_path, default_env):
    started = time.monotonic()
    with pytest.raises(runner.RunnerError, match="(?s)time limit of 8 s.*about to wait"):
        forked(snippet(tmp_path, STRATEGY + "import time\nprint('about to wait', flush=True)\ntime.sleep(600)\n"),
               default_env, time_limit=8)
    assert time.monotonic() - started < 60
    assert forked(snippet(tmp_path, STRATEGY), default_env)["outcome"] == "passed"


def test_a_child_filling_memory_ends_as_a_record(tmp_path, default_env):
    """The fork's address space is capped (forkserver.MEMORY_LIMIT): the snippet gets a MemoryError."""
    record = runner.run(runner.Job(snippet(tmp_path, STRATEGY + "block = bytearray(64 << 30)\n"), default_env,
                                   expect.Expectation("raises", exception="MemoryError", match="")),
                        use_cache=False, mode="fork")
    assert (record["outcome"], record["exception"]) == ("raised", "MemoryError")


def _children(pid):
    found = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            found += [int(p) for p in Path(path).read_text().split()]
        except OSError:
            pass
    return found


def test_no_zombie_is_left_and_servers_end_with_the_runner(tmp_path, default_env):
    forked(snippet(tmp_path, STRATEGY + "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', "
                                        "'import time; time.sleep(600)'])\n"), default_env)
    servers = [s for s in forkpool._all if s.alive()]
    assert servers
    for server in servers:
        assert _children(server.process.pid) == []  # neither the child nor what it left running
    forkpool.stop_all()
    assert not any(s.alive() for s in servers)


DRIVER = """\
import sys
from pathlib import Path
from tfdist_kb.proof import envs, expect, runner
job = runner.Job(Path(sys.argv[1]), envs.default(), expect.Expectation("passes"))
runner.run(job, use_cache=False, time_limit=600, mode="fork")
"""


def _marked(marker):
    found = []
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if marker.encode() in Path(cmdline).read_bytes():
                found.append(int(cmdline.split("/")[2]))
        except OSError:
            pass
    return found


def _server_pids(driver_pid):
    """The forkserver processes this driver started (their command line names no snippet)."""
    return [pid for pid in _marked("tfdist_kb.proof.forkserver")
            if Path(f"/proc/{pid}/stat").read_text().split()[3] == str(driver_pid)]


def test_a_killed_runner_leaves_no_server_no_child_and_no_scratch_folder(tmp_path, default_env):
    marker = f"tfdist-fork-{uuid.uuid4().hex}"
    ready, temporary = tmp_path / "ready", tmp_path / "tmp"
    temporary.mkdir()
    path = snippet(tmp_path, STRATEGY + f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', "
                                        f"'import time; time.sleep(600)', {marker!r}])\n"
                                        f"open({str(ready)!r}, 'w').write('x')\ntime.sleep(600)\n")
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(path)], cwd=ROOT,
                              env=dict(os.environ, TMPDIR=str(temporary)))
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), "the snippet never started"
        servers = _server_pids(driver.pid)
        assert len(servers) == 1 and _marked(marker)
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 10
        while (_marked(marker) or any(Path(f"/proc/{p}").exists() for p in servers)
               or list(temporary.iterdir())) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _marked(marker), "the snippet's process outlived its runner"
        assert not [p for p in servers if Path(f"/proc/{p}").exists()], "the server outlived its runner"
        assert not list(temporary.iterdir()), [p.name for p in temporary.iterdir()]
    finally:
        driver.kill()
        for pid in _marked(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_snippet_can_declare_it_needs_a_fresh_process(tmp_path, default_env):
    header = '# /// tfdist\n# fresh-process = "sets TF_XLA_FLAGS before importing TensorFlow"\n# [expect]\n' \
             '# default = "passes"\n# ///\n'
    path = snippet(tmp_path, STRATEGY, header=header)
    assert expect.fresh_process(path).startswith("sets TF_XLA_FLAGS")
    assert forked(path, default_env)["mode"] == "fresh"
    with pytest.raises(expect.ExpectError, match="takes the reason"):
        expect.fresh_process(snippet(tmp_path, "", header='# /// tfdist\n# fresh-process = ""\n# [expect]\n'
                                                          '# default = "passes"\n# ///\n'))


def test_a_snippet_can_declare_it_shows_tensorflows_own_log(tmp_path, default_env):
    """The runner quiets TensorFlow's C++ log; a snippet about one of its lines runs, in a fresh
    process, with the log level a user's machine has (the variable unset)."""
    code = "import os\nprint('level:', os.environ.get('TF_CPP_MIN_LOG_LEVEL'))\n" + STRATEGY
    header = '# /// tfdist\n# tensorflow-log = "it shows a warning of TensorFlow\'s C++ core"\n# [expect]\n' \
             '# default = "passes"\n# ///\n'
    shown = forked(snippet(tmp_path, code, header=header), default_env)
    assert (shown["mode"], shown["stdout"]) == ("fresh", "level: None")
    quiet = forked(snippet(tmp_path, code), default_env)
    assert (quiet["mode"], quiet["stdout"]) == ("fork", "level: 2")


def test_an_environment_can_opt_out(default_env):
    from dataclasses import replace

    job = runner.Job(ROOT / "snippets/TFD001/build_optimizer_in_scope.py", replace(default_env, fork=False),
                     expect.Expectation("passes"))
    assert runner.mode_of(job, "fork") == "fresh"
    assert runner.mode_of(runner.Job(job.snippet, default_env, job.expectation), "fork") == "fork"
    assert runner.mode_of(runner.Job(job.snippet, default_env, job.expectation), "fresh") == "fresh"
