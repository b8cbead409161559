"""The runner's own contract: malformed declarations, hangs, too few replicas, stale evidence and
bad command-line input each give a clear message naming the problem."""
import subprocess
import sys
import textwrap

import pytest

from tfdist_kb.proof import envs, evidence, expect, messages, runner

NAMES = [e.name for e in envs.load()]


def write(tmp_path, header, code="import tensorflow as tf\n"):
    path = tmp_path / "s.py"
    path.write_text(textwrap.dedent(header) + code)
    return path


@pytest.mark.parametrize("header, problem", [
    ("", "no '# /// tfdist'"),
    ("# /// tfdist\n# [expect]\n# default = passes\n# ///\n", "not valid TOML"),
    ("# /// tfdist\n# [expect]\n# \"tf9.9\" = \"passes\"\n# default = \"passes\"\n# ///\n", "unknown environment"),
    ("# /// tfdist\n# [expect]\n# \"tf2.4\" = \"passes\"\n# ///\n", "no expectation for environment"),
    ("# /// tfdist\n# [expect]\n# default = { raises = \"ValueError\" }\n# ///\n", "needs a 'match' regex"),
    ("# /// tfdist\n# [expect]\n# default = { prints = \"(\" }\n# ///\n", "bad regex"),
    ("# /// tfdist\n# [expect]\n# default = { not-applicable = \"\" }\n# ///\n", "needs a reason"),
    ("# /// tfdist\n# [expect]\n# default = \"fails\"\n# ///\n", "expected \"passes\" or a table"),
])
def test_malformed_declaration_names_file_and_problem(tmp_path, header, problem):
    path = write(tmp_path, header)
    with pytest.raises(expect.ExpectError) as error:
        expect.read(path, NAMES)
    assert str(path) in str(error.value) and problem in str(error.value)


def test_judge_checks_type_message_output_and_replicas():
    raises = expect.Expectation("raises", exception="ValueError", match="scope")
    job = runner.Job(runner.ROOT / "x.py", envs.default(), raises)
    ok = {"outcome": "raised", "exception": "ValueError", "message": "wrong scope", "replicas": 4}
    assert runner.judge(job, ok) == []
    assert runner.judge(job, dict(ok, exception="TypeError"))
    assert runner.judge(job, dict(ok, message="other"))
    assert runner.judge(job, dict(ok, replicas=1))
    assert runner.judge(job, {"outcome": "passed", "replicas": 4})
    prints = expect.Expectation("prints", match="^replicas: 1$")
    job = runner.Job(runner.ROOT / "x.py", envs.default(), prints)
    assert runner.judge(job, {"outcome": "passed", "stdout": "replicas: 1", "replicas": 4}) == []
    assert runner.judge(job, {"outcome": "passed", "stdout": "replicas: 4", "replicas": 4})


def test_evidence_differences_are_named():
    committed = {"outcome": "passed", "stdout": "a", "replicas": 4}
    assert evidence.differences(committed, dict(committed)) == []
    assert evidence.differences(committed, dict(committed, stdout="b")) == ["stdout: committed 'a', now 'b'"]
    raised = {"outcome": "raised", "headline": "You must feed a value for placeholder tensor 'cond/Placeholder'",
              "message": "Graph execution error:\n\nYou must feed a value for placeholder tensor 'cond/Placeholder'"}
    assert evidence.differences(raised, dict(raised, headline="another problem"))
    # headline and whole message are compared exactly: the runner normalised both before storing them
    assert evidence.differences(raised, dict(raised, headline=raised["headline"] + "_3"))
    assert [d.split(":")[0] for d in evidence.differences(raised, dict(raised, message=raised["message"] + "!"))] == ["message"]
    # several replicas failing together: how many had reported is timing; the first one's message is not
    several = {"outcome": "raised", "headline": "Dimension -2147483648 must be >= 0",
               "message": "Graph execution error:\n\n4 root error(s) found.\n  (0) INVALID_ARGUMENT:  Dimension "
                          "-2147483648 must be >= 0\n  (1) INVALID_ARGUMENT:  Dimension -2147483648 must be >= 0"}
    one = dict(several, message="Graph execution error:\n\nDetected at node replica_3/ones\nDimension -2147483648 "
                                "must be >= 0")
    assert evidence.differences(several, one) == [] and evidence.differences(one, several) == []
    assert evidence.differences(several, dict(one, headline="Dimension -1 must be >= 0"))
    # interchangeable exceptions (declared): one may stop the run at another line than the other did
    stopped = {"outcome": "raised", "exception": "InvalidArgumentError", "headline": "Shape mismatch", "stdout": "stage 1"}
    later = dict(stopped, exception="AssertionError", headline="took 1 of 2 steps", stdout="stage 1\nstage 2")
    assert evidence.differences(stopped, later, ("InvalidArgumentError", "AssertionError")) == []
    assert evidence.differences(stopped, dict(stopped, stdout="stage 1\nstage 2"), ("InvalidArgumentError", "AssertionError"))
    assert evidence.differences(stopped, later, ("InvalidArgumentError", "CancelledError"))


def test_normalise_removes_addresses_and_temp_paths():
    text = "<obj at 0x7f3a2b1c9d30> saved to /tmp/tmpab12cd34/model.keras  \n"
    assert messages.normalise(text) == "<obj at 0x…> saved to <tmpdir>"
    where = 'File "/home/ci/x/.envs/tf2.15/lib/python3.11/site-packages/keras/a.py", File "/w/r/snippets/TFD001/b.py"'
    assert messages.normalise(where) == 'File "…/lib/python3.11/site-packages/keras/a.py", File "snippets/TFD001/b.py"'


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def test_hanging_snippet_stops_at_time_limit_with_name_and_last_output(tmp_path, default_env):
    path = write(tmp_path, '# /// tfdist\n# [expect]\n# default = "passes"\n# ///\n',
                 "import time\nprint('about to wait', flush=True)\ntime.sleep(600)\n")
    job = runner.Job(path, default_env, expect.Expectation("passes"))
    with pytest.raises(runner.RunnerError) as error:
        runner.run(job, use_cache=False, time_limit=25)
    assert str(path) in str(error.value) and "time limit" in str(error.value) and "about to wait" in str(error.value)


def test_fewer_than_four_replicas_is_not_evidence(tmp_path, default_env):
    path = write(tmp_path, '# /// tfdist\n# [expect]\n# default = "passes"\n# ///\n',
                 "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(['/cpu:0'])\n"
                 "strategy.run(lambda: 1)\n")
    job = runner.Job(path, default_env, expect.Expectation("passes"))
    with pytest.raises(runner.RunnerError, match="1 replica.*not 4 on 4"):
        runner.run(job, use_cache=False)


def tfdist(*args):
    return subprocess.run([sys.executable, "-m", "tfdist_kb.commands.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["matrix", "--envs", "tf9"], "unknown environment"),
    (["run", "snippets/none.py"], "no such snippet file"),
])
def test_bad_input_gives_one_line_error(args, message):
    result = tfdist(*args)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_environment_whose_versions_differ_from_pins_is_refused(monkeypatch):
    env = envs.default()
    pins = env.pins()
    have = {name: envs.Installed(version) for name, version in dict(pins, tensorflow="2.20.0", extra="1.0").items()}
    monkeypatch.setattr(envs, "distributions", lambda e: have)
    with pytest.raises(envs.EnvError) as error:
        envs.check_pins(env)
    message = str(error.value)
    assert env.name in message and "tensorflow 2.20.0 (pinned" in message and "extra 1.0 (not pinned)" in message


def test_missing_interpreter_is_named():
    with pytest.raises(envs.EnvError, match="no working Python 2.9"):
        envs.find_interpreter("2.9")


def test_documented_hang_is_recorded_not_raised(tmp_path, default_env):
    path = write(tmp_path, '# /// tfdist\n# [expect]\n# default = { hangs = 20 }\n# ///\n',
                 "import time\nimport tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"
                 "print('waiting', flush=True)\ntime.sleep(600)\n")
    job = runner.Job(path, default_env, expect.read(path, NAMES)[default_env.name])
    record = runner.run(job, use_cache=False)
    assert record["outcome"] == "timed-out" and record["stdout"] == "waiting"
    assert runner.judge(job, record) == []


def test_snippets_do_not_inherit_tensorflow_settings(monkeypatch):
    """Importing TF 2.x sets TF2_BEHAVIOR=1 in that process; a TF 1.15 child must not see it."""
    monkeypatch.setenv("TF2_BEHAVIOR", "1")
    monkeypatch.setenv("TF_USE_LEGACY_KERAS", "1")
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    environ = envs.select("tf1.15")[0].process_environ()
    assert not {"TF2_BEHAVIOR", "TF_USE_LEGACY_KERAS", "KERAS_BACKEND"} & set(environ)
    assert envs.select("tf2.21-tfkeras")[0].process_environ()["TF_USE_LEGACY_KERAS"] == "1"


def test_recorded_message_leaves_out_which_replica_reported():
    """A collective error names the device of the replica that reported it first (thread timing);
    the recorded message leaves that index out, so two runs compare equal there and nowhere else."""
    said = ("Collective ops is aborted by: Shape mismatch in the collective instance 100. Op at device "
            "/job:localhost/replica:0/task:0/device:{}:{} expected shape [21] but another member in the group "
            "expected shape [41].")
    recorded = messages.message(said.format("CPU", 3))
    assert recorded == messages.message(said.format("CPU", 0))
    assert "device:CPU:N expected shape [21]" in recorded[0] and recorded[1] == recorded[0]
    assert recorded != messages.message(said.format("GPU", 3))  # another kind of device
    assert recorded != messages.message(said.format("CPU", 3).replace("[21]", "[29]"))


def test_raises_may_list_the_exceptions_thread_timing_chooses_between(tmp_path):
    """`raises = ["A", "B"]`: either passes the judge, and two runs that raised one and the other
    do not differ; a third name still fails, and a malformed list is refused in one line."""
    header = '# /// tfdist\n# [expect]\n# default = {{ raises = {}, match = "boom" }}\n# ///\n'
    path = tmp_path / "s.py"
    path.write_text(header.format('["InvalidArgumentError", "CancelledError"]'))
    exp = expect.read(path, ["e"])["e"]
    assert exp.exceptions == ("InvalidArgumentError", "CancelledError") and "InvalidArgumentError or Cancel" in exp.describe()
    run = {"outcome": "raised", "exception": "CancelledError", "message": "boom", "headline": "boom"}
    assert exp.judge(run) == [] and exp.judge(dict(run, exception="InvalidArgumentError")) == []
    assert exp.judge(dict(run, exception="ValueError"))
    assert evidence.differences(run, dict(run, exception="InvalidArgumentError"), exp.exceptions) == []
    assert evidence.differences(run, dict(run, exception="InvalidArgumentError"))  # undeclared: a difference
    for bad in ("[]", '["Invalid Argument"]', "[1]"):
        path.write_text(header.format(bad))
        with pytest.raises(expect.ExpectError, match="'raises' takes an exception's class name"):
            expect.read(path, ["e"])
