"""Every check of the runner can fail: each mutation below once left `make test` green and must now
turn it red, with a message that says what is wrong. Runs real snippets in the default environment."""
import json
import subprocess

import pytest

from tfdist_kb.proof import envs, expect, messages, runner, witness

HEADER = '# /// tfdist\n# [expect]\n# default = "passes"\n# ///\n'


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def run_code(tmp_path, env, code, expectation=expect.Expectation("passes")):
    path = tmp_path / "mutant.py"
    path.write_text(HEADER + code)
    return runner.run(runner.Job(path, env, expectation), use_cache=False)


def test_decoy_strategy_while_the_work_runs_on_one_device(tmp_path, default_env):
    code = ("import tensorflow as tf\n"
            "strategy = tf.distribute.MirroredStrategy()  # 4 replicas, never used\n"
            "def train():\n"
            "    used = tf.distribute.MirroredStrategy(['/cpu:0'])\n"
            "    used.run(lambda: tf.constant(1.0))\n"
            "    print('replicas actually used:', used.num_replicas_in_sync)\n"
            "train()\n")
    with pytest.raises(runner.RunnerError, match=r"over CPU:0: 1 replica\(s\)"):
        run_code(tmp_path, default_env, code)


def test_strategy_that_never_runs_a_replica_step_is_not_a_pass(tmp_path, default_env):
    code = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nprint(strategy.num_replicas_in_sync)\n"
    with pytest.raises(runner.RunnerError, match="no replica function ran on all 4 replicas"):
        run_code(tmp_path, default_env, code)


def test_four_gpu_names_that_do_not_exist_are_soft_placement_not_replicas(tmp_path, default_env):
    code = ("import tensorflow as tf\n"
            "strategy = tf.distribute.MirroredStrategy(['/gpu:%d' % i for i in range(4)])\n"
            "strategy.run(lambda: tf.constant(1.0))\n")
    with pytest.raises(runner.RunnerError, match="does not have GPU:0, GPU:1, GPU:2, GPU:3"):
        run_code(tmp_path, default_env, code)


def test_a_session_with_its_own_config_sees_the_four_devices(tmp_path, default_env):
    """An Estimator passes its own ConfigProto; on a 4-GPU machine its session sees 4 GPUs, here 4 CPUs."""
    code = ("import tensorflow as tf\n"
            "v1 = tf.compat.v1\n"
            "v1.disable_eager_execution()\n"
            "strategy = tf.distribute.MirroredStrategy()\n"
            "ids = strategy.extended.call_for_each_replica(\n"
            "    lambda: tf.identity(tf.distribute.get_replica_context().replica_id_in_sync_group))\n"
            "config = v1.ConfigProto(allow_soft_placement=True)\n"
            "with v1.Session(config=config) as session:\n"
            "    print(sorted(d.name.split('/')[-1] for d in session.list_devices()))\n"
            "    print([int(i) for i in session.run(list(strategy.experimental_local_results(ids)))])\n"
            "assert not config.device_count  # the caller's config object is not changed\n")
    record = run_code(tmp_path, default_env, code)
    assert record["stdout"].splitlines() == ["['device:CPU:0', 'device:CPU:1', 'device:CPU:2', 'device:CPU:3']", "[0, 1, 2, 3]"]
    assert record["ran_on"] == ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]
    assert record["witness"]["sessions"] and all(len(s) == 4 for s in record["witness"]["sessions"])


def test_documented_hang_on_too_few_devices_is_not_evidence(tmp_path, default_env):
    code = ("import time\nimport tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(['/cpu:0'])\n"
            "time.sleep(600)\n")
    with pytest.raises(runner.RunnerError, match="not evidence"):
        run_code(tmp_path, default_env, code, expect.Expectation("hangs", seconds=20))


def test_environment_drifted_from_its_lock_is_refused_before_any_run(tmp_path, monkeypatch):
    """A built environment in which one package was changed by hand: `tfdist envs` must not say ready."""
    monkeypatch.setattr(envs, "PINS", tmp_path / "pins")
    monkeypatch.setattr(envs, "HOME", tmp_path / "envs")
    (tmp_path / "pins").mkdir()
    (tmp_path / "pins" / "tiny.txt").write_text("six==1.16.0\n")
    env = envs.Env("tiny", "3.11", "a one-package environment")
    envs.ensure(env, log=lambda *a: None)
    assert envs.is_ready(env)
    subprocess.run([envs.uv(), "pip", "install", "-q", "--python", str(env.interpreter), "six==1.15.0"], check=True)
    with pytest.raises(envs.EnvError, match=r"six 1\.15\.0 \(pinned 1\.16\.0\).*tfdist envs tiny --rebuild"):
        envs.ensure(env, log=lambda *a: None)
    envs.ensure(env, log=lambda *a: None, rebuild=True)  # what the message says to do, works
    assert envs.installed(env)["six"] == "1.16.0"


def test_cache_key_covers_installed_packages_and_runner_code(default_env, monkeypatch):
    job = runner.Job(runner.snippet_files()[0], default_env, expect.Expectation("passes"))
    before = runner.cache_path(job)
    monkeypatch.setitem(envs._checked, default_env.name, "another-installation")
    assert runner.cache_path(job) != before
    names = {p.name for p in runner._RUNNER_CODE}
    assert {"runner.py", "child.py", "replicas.py", "witness.py", "messages.py", "envs.py"} <= names


# The proof itself, on records as the child writes them
DEVICES = ["/job:localhost/replica:0/task:0/device:CPU:%d" % i for i in range(4)]
GOOD = {"strategies": [{"class": "MirroredStrategy", "replicas": 4, "devices": DEVICES}],
        "ran": {"0": [0, 1, 2, 3]}, "sessions": [], "runtime_devices": ["/device:CPU:%d" % i for i in range(4)]}


@pytest.mark.parametrize("change, outcome, problem", [
    ({}, "passed", None),
    ({"ran": {"0": [0]}}, "passed", "no replica function ran on all 4"),
    ({"ran": {}}, "raised", None),
    ({"strategies": []}, "raised", "no tf.distribute strategy"),
    ({"sessions": [["/job:localhost/replica:0/task:0/device:CPU:0"]]}, "passed", "Session 1 sees only CPU:0"),
    ({"runtime_devices": ["/device:CPU:0"]}, "raised", "does not have CPU:1, CPU:2, CPU:3"),
    ({"runtime_devices": None}, "timed-out", "cannot tell which devices exist"),
    ({"strategies": [{"class": "MirroredStrategy", "replicas": 4, "devices": [DEVICES[0]] * 4}]}, "passed",
     "4 replica(s) on 1 distinct device(s)"),
])
def test_witness_problems(change, outcome, problem):
    found = witness.problems(dict(GOOD, **change), outcome)
    assert (found == []) if problem is None else any(problem in p for p in found), found


# Whole messages: the line that names the problem, from the shapes TensorFlow and Keras wrap it in
@pytest.mark.parametrize("message, headline", [
    ("in user code:\n\n    File \"snippets/TFD001/a.py\", line 3, in step  *\n        opt.apply(g)\n\n"
     "    ValueError: Need to be inside \"with strategy.scope()\" for x\n", 'Need to be inside "with strategy.scope()" for x'),
    ("Graph execution error:\n\nDetected at node StatefulPartitionedCall defined at (most recent call last):\n"
     "<stack traces unavailable>\nTrying to access a placeholder that is not supposed to be executed.\n"
     "\t [[{{node x}}]] [Op:__inference_train_function_99]", "Trying to access a placeholder that is not supposed to be executed."),
    ("Graph execution error:\n\nDetected at node cond/Placeholder defined at (most recent call last):\n"
     "  File \"<frozen runpy>\", line 198, in _run_module_as_main\n\n4 root error(s) found.\n"
     "  (0) INVALID_ARGUMENT:  You must feed a value for placeholder tensor 'p' with dtype int32\n"
     "\t [[{{node cond/Placeholder}}]]\n  (1) INVALID_ARGUMENT:  You must feed a value\n0 successful operations.",
     "You must feed a value for placeholder tensor 'p' with dtype int32"),
    ("in user code:\n\n    File \"…/tf_keras/src/optimizers/optimizer.py\", line 1431, in apply_fn\n"
     "        distribution.extended.update(\n\n    AssertionError: ",
     "AssertionError with no message, raised at \"…/tf_keras/src/optimizers/optimizer.py\", line 1431, "
     "in apply_fn: distribution.extended.update("),
    # TF 2.4 and before spell the status code in words: the first replica's own message still
    ("3 root error(s) found.\n  (0) Invalid argument:  Dimension -2147483648 must be >= 0\n"
     "\t [[node replica_3/ones (defined at x.py:18) ]]\n  (1) Invalid argument:  Dimension -2147483648 must be >= 0",
     "Dimension -2147483648 must be >= 0"),
    # a replica that was only cancelled says nothing of why: the first one that does (TF 2.0.4's fit)
    ("4 root error(s) found.\n  (0) Cancelled:  Operation was cancelled\n\t [[{{node cond_6/else/_59/IteratorGetNext}}]]\n"
     "  (1) Out of range:  End of sequence\n\t [[{{node cond_7/else/_70/IteratorGetNext}}]]", "End of sequence"),
    ("4 root error(s) found.\n  (0) Cancelled:\n  (1) Cancelled:\n  (2) Out of range:  End of sequence", "End of sequence"),
    ("2 root error(s) found.\n  (0) CANCELLED:  Operation was cancelled\n  (1) CANCELLED:  Operation was cancelled",
     "Operation was cancelled"),
    ("Tried to create variable dense/kernel/replica_1/E/ with mismatching name on device 1",
     "Tried to create variable dense/kernel/replica_1/E/ with mismatching name on device 1"),
])
def test_headline_names_the_problem(message, headline):
    assert messages.headline(message) == headline


def test_long_traceback_in_a_message_is_shortened_before_the_message_is_cut():
    frames = "".join('  File "f%d.py", line 1, in g\n\n' % i for i in range(500))
    text = "Graph execution error:\n\nDetected at node n defined at (most recent call last):\n" + frames + \
        "1 root error(s) found.\n  (0) INVALID_ARGUMENT: the real problem"
    capped = messages.cap(text)
    assert len(capped) < messages.CAP and capped.endswith("the real problem") and "494 frames left out" in capped


def test_whole_message_is_capped_keeping_start_and_end():
    text = "start\n" + "\n".join("line %d" % i for i in range(2000)) + "\nend"
    capped = messages.cap(text)
    assert len(capped) <= messages.CAP + 60 and capped.startswith("start") and capped.endswith("end")
    assert "characters left out" in capped


def test_timed_out_run_shows_what_the_snippet_printed_without_tensorflow_logs():
    stderr = ("2026-12-02 15:40:01.123456: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
              "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
              "W0000 00:00:1733150000.123456   12345 cpu_feature_guard.cc:15] some banner\n"
              "my own warning\n")
    shown = runner._last_output("about to wait\n", stderr)
    assert shown.startswith("stdout: about to wait") and "my own warning" in shown and "oneDNN" not in shown
