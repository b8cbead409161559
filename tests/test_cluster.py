"""The local cluster (tfdist_kb.proof.cluster): a snippet declared `cluster = { worker = 4 }` runs as 4
processes over loopback only, and the 4-replica proof holds across them. Each mutation below is a way
a cluster run could claim what it did not do; each must be refused with a message saying what is wrong.
Runs real clusters in the default environment (about 5 to 10 s each)."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tfdist_kb.proof import envs, expect, runner

HEADER = '# /// tfdist\n# cluster = {{ worker = {n} }}\n# [expect]\n# default = "passes"\n# ///\n'
STEP = ("import tensorflow as tf\n"
        "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
        "@tf.function\n"
        "def step():\n"
        "    ctx = tf.distribute.get_replica_context()\n"
        "    return ctx.all_reduce('sum', tf.cast(ctx.replica_id_in_sync_group, tf.float32))\n"
        "total = float(strategy.experimental_local_results(strategy.run(step))[0])\n"
        "print('sum of the replica ids:', total)\n"
        "assert total == 6.0\n")


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def run_code(tmp_path, env, code, expectation=expect.Expectation("passes"), n=4, name="cluster.py"):
    path = tmp_path / name
    path.write_text(HEADER.format(n=n) + code)
    return runner.run(runner.Job(path, env, expectation), use_cache=False)


def test_four_workers_are_four_replicas_on_four_devices(tmp_path, default_env):
    record = run_code(tmp_path, default_env, STEP)
    assert record["outcome"] == "passed" and record["replicas"] == 4
    assert record["ran_on"] == [f"worker:{i}/CPU:0" for i in range(4)]
    assert [t["task"] for t in record["tasks"]] == [f"worker:{i}" for i in range(4)]
    assert all(t["outcome"] == "passed" and t["stdout"] == "sum of the replica ids: 6.0" for t in record["tasks"])
    assert record["stdout"] == "sum of the replica ids: 6.0"
    assert record["reduction"].startswith("CollectiveAllReduce")


def test_the_only_network_is_loopback(tmp_path, default_env):
    """Where the machine allows a network namespace, the tasks see no interface but `lo`, and their
    TF_CONFIG names localhost ports only; either way every address in TF_CONFIG is localhost."""
    code = ("import json, os, socket\n"
            "config = json.loads(os.environ['TF_CONFIG'])\n"
            "print(sorted({a.split(':')[0] for addresses in config['cluster'].values() for a in addresses}))\n"
            "print(config['cluster']['worker'])\n"
            "print([name for _, name in socket.if_nameindex()] if os.environ.get('CHECK_IF') else '')\n" + STEP)
    os.environ["CHECK_IF"] = "1" if runner._private_network() else ""
    try:
        record = run_code(tmp_path, default_env, code)
    finally:
        del os.environ["CHECK_IF"]
    lines = record["stdout"].splitlines()
    assert lines[0] == "['localhost']"
    assert lines[1] == str([f"localhost:{20000 + i}" for i in range(4)])  # the same text with or without a namespace
    if runner._private_network():
        assert lines[2] == "['lo']"


def test_host_loopback_ports_are_recorded_as_the_fixed_ones(tmp_path, default_env, monkeypatch):
    """Without a namespace of its own the launcher takes free ports; the record is the same text."""
    monkeypatch.setattr(runner, "_private_network", lambda: [])
    code = "import json, os\nprint(json.loads(os.environ['TF_CONFIG'])['cluster']['worker'])\n" + STEP
    record = run_code(tmp_path, default_env, code)
    assert record["network"] == "the host's loopback"
    assert record["stdout"].splitlines()[0] == str([f"localhost:{20000 + i}" for i in range(4)])


def test_one_task_raises_the_others_are_stopped_and_named(tmp_path, default_env):
    code = ("import json, os\n"
            "import tensorflow as tf\n"
            "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
            "if json.loads(os.environ['TF_CONFIG'])['task']['index'] == 2:\n"
            "    raise ValueError('worker 2 gives up')\n"
            "strategy.run(tf.function(lambda: tf.distribute.get_replica_context().all_reduce('sum', 1.0)))\n")
    started = time.monotonic()
    record = run_code(tmp_path, default_env, code, expect.Expectation("raises", "ValueError", "gives up"))
    assert time.monotonic() - started < 120
    assert (record["outcome"], record["exception"], record["message"]) == ("raised", "ValueError", "worker 2 gives up")
    by_task = {t["task"]: t for t in record["tasks"]}
    assert by_task["worker:2"]["outcome"] == "raised" and by_task["worker:2"]["headline"] == "worker 2 gives up"
    assert {by_task[f"worker:{i}"]["outcome"] for i in (0, 1, 3)} <= {"stopped", "raised"}
    assert record["ran_on"] == [f"worker:{i}/CPU:0" for i in range(4)]


def test_a_worker_that_falls_back_to_a_strategy_of_its_own_is_refused(tmp_path, default_env):
    code = ("import json, os\n"
            "import tensorflow as tf\n"
            "if json.loads(os.environ['TF_CONFIG'])['task']['index'] == 3:\n"
            "    strategy = tf.distribute.MirroredStrategy()  # silently local: 1 replica on its CPU\n"
            "    strategy.run(lambda: tf.constant(1.0))\n"
            "else:\n"
            "    strategy = tf.distribute.MultiWorkerMirroredStrategy()\n")
    with pytest.raises(runner.RunnerError, match=r"worker:3: MirroredStrategy over CPU:0: 1 replica\(s\) in sync, not 4"):
        run_code(tmp_path, default_env, code, expect.Expectation("hangs", seconds=90))


def test_two_tasks_given_the_same_index_are_refused(tmp_path, default_env, monkeypatch):
    """worker:1 twice and no worker:2: the cluster cannot form (one raises, the others wait), and the
    proof refuses it from what the tasks themselves were told."""
    monkeypatch.setattr(expect, "cluster", lambda path: [("worker", 0), ("worker", 1), ("worker", 1), ("worker", 3)])
    with pytest.raises(runner.RunnerError, match=r"not evidence.*2 tasks were told by TF_CONFIG that they are worker:1"):
        run_code(tmp_path, default_env, STEP, expect.Expectation("hangs", seconds=90))


def test_a_cluster_of_three_declared_as_four_is_refused(tmp_path, default_env, monkeypatch):
    """The snippet declares 4 workers; a runner that starts 3 gets 3 replicas, and says so."""
    monkeypatch.setattr(expect, "cluster", lambda path: [("worker", i) for i in range(3)])
    code = STEP.replace("assert total == 6.0\n", "")
    with pytest.raises(runner.RunnerError, match=r"3 replica\(s\) in sync, not 4"):
        run_code(tmp_path, default_env, code)


def test_a_cluster_snippet_that_never_creates_a_strategy_is_refused(tmp_path, default_env):
    with pytest.raises(runner.RunnerError, match="worker:0: created no tf.distribute strategy"):
        run_code(tmp_path, default_env, "print('nothing distributed')\n")


PS_HEADER = '# /// tfdist\n# cluster = { chief = 1, worker = 4, ps = 1 }\n# [expect]\n# default = "passes"\n# ///\n'
PS_SERVE = ("import tensorflow as tf\n"
            "resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()\n"
            "if resolver.task_type in ('worker', 'ps'):\n"
            "    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,\n"
            "                         task_index=resolver.task_id, protocol='grpc', start=True).join()\n")
PS_STEPS = ("strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)\n"
            "coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)\n"
            "with strategy.scope():\n"
            "    w = tf.Variable(0.0)\n"
            "@tf.function\n"
            "def step():\n"
            "    return strategy.run(lambda: w.assign_add(1.0))\n"
            "for _ in range(STEPS):\n"
            "    coordinator.schedule(step)\n"
            "coordinator.join()\n"
            "print('steps:', int(w.numpy()), 'variable on', w.device.split('/device')[0])\n")


def run_ps(tmp_path, env, code):
    path = tmp_path / "ps.py"
    path.write_text(PS_HEADER + code)
    return runner.run(runner.Job(path, env, expect.Expectation("passes")), use_cache=False)


def test_a_parameter_server_cluster_is_proven_by_its_coordinator(tmp_path, default_env):
    """chief + 4 workers + 1 ps: the workers and the ps serve until the chief (the coordinator) ends;
    the steps it scheduled were executed by each of the 4 workers, the variable lives on the ps."""
    record = run_ps(tmp_path, default_env, PS_SERVE + PS_STEPS.replace("STEPS", "40"))
    assert record["outcome"] == "passed" and record["stdout"] == "steps: 40 variable on /job:ps/replica:0/task:0"
    assert record["ran_on"] == [f"worker:{i}/CPU:0" for i in range(4)]
    assert [(t["task"], t["outcome"]) for t in record["tasks"]] == (
        [("chief:0", "passed")] + [(f"worker:{i}", "served") for i in range(4)] + [("ps:0", "served")])


def test_a_coordinator_whose_steps_did_not_reach_every_worker_is_refused(tmp_path, default_env):
    """One step runs on one worker: that is not 4 replicas, whatever the cluster holds."""
    with pytest.raises(runner.RunnerError, match=r"scheduled were executed by worker:\d, not by all 4 workers"):
        run_ps(tmp_path, default_env, PS_SERVE + PS_STEPS.replace("STEPS", "1"))


def test_a_parameter_server_cluster_of_three_workers_declared_as_four_is_refused(tmp_path, default_env, monkeypatch):
    monkeypatch.setattr(expect, "cluster", lambda path: [("chief", 0)] + [("worker", i) for i in range(3)] + [("ps", 0)])
    with pytest.raises(runner.RunnerError, match=r"spans 1 chief, 1 ps, 3 worker, not 4 workers"):
        run_ps(tmp_path, default_env, PS_SERVE + PS_STEPS.replace("STEPS", "40"))


NO_RESOLVER = expect.Expectation("raises", "TypeError", "required positional argument: 'cluster_resolver'")


def test_a_coordinator_that_raises_before_it_reaches_its_cluster_is_proven_by_the_workers_servers(tmp_path, default_env):
    """The chief fails in its strategy's constructor, before it connects (TFD047): the devices the steps
    were to run on are the 4 workers' CPUs, as each worker's own server recorded them; the servers are
    stopped only once they have recorded themselves."""
    path = tmp_path / "ps.py"
    path.write_text(PS_HEADER + PS_SERVE + "tf.distribute.experimental.ParameterServerStrategy()\n")
    record = runner.run(runner.Job(path, default_env, NO_RESOLVER), use_cache=False)
    assert record["outcome"] == "raised" and record["exception"] == "TypeError"
    assert record["ran_on"] == [f"worker:{i}/CPU:0" for i in range(4)]
    assert [s["task"] for s in record["witness"]["worker:2"]["servers"]] == ["worker:2"]


def test_workers_that_serve_no_task_of_the_cluster_prove_no_device(tmp_path, default_env):
    """The same failing chief, but each worker starts a one-task server of its own (not the cluster's
    worker it was told it is): nothing shows the 4 workers' devices, and the run is not evidence."""
    path = tmp_path / "ps.py"
    path.write_text(PS_HEADER + PS_SERVE.replace(
        "tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,\n"
        "                         task_index=resolver.task_id, protocol='grpc', start=True).join()",
        "tf.distribute.Server.create_local_server().join()") + "tf.distribute.experimental.ParameterServerStrategy()\n")
    with pytest.raises(runner.RunnerError, match=r"the run names 0 device\(s\) its replicas were on \(none\)"):
        runner.run(runner.Job(path, default_env, NO_RESOLVER), use_cache=False)


ESTIMATOR_STRATEGY = ("tf.config.experimental_connect_to_cluster(resolver, job_name=resolver.task_type,\n"
                      "                                        task_index=resolver.task_id)\n"
                      "strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy(resolver)\n"
                      "with strategy.scope():  # refused while eager execution is on\n"
                      "    pass\n")
REFUSED = expect.Expectation("raises", "NotImplementedError", "only works with the tf.Estimator API")


def test_the_estimator_strategy_over_the_cluster_counts_in_a_run_that_raised(tmp_path, default_env):
    """The tf.compat.v1 strategy keeps only the cluster it was given (no resolver of its own): that
    cluster is what it spans, and the chief's connected runtime reaches the 4 workers (TFD047)."""
    path = tmp_path / "ps.py"
    path.write_text(PS_HEADER + PS_SERVE + ESTIMATOR_STRATEGY)
    record = runner.run(runner.Job(path, default_env, REFUSED), use_cache=False)
    assert record["outcome"] == "raised" and record["exception"] == "NotImplementedError"


def test_the_estimator_strategy_over_three_workers_declared_as_four_is_refused(tmp_path, default_env, monkeypatch):
    monkeypatch.setattr(expect, "cluster", lambda path: [("chief", 0)] + [("worker", i) for i in range(3)] + [("ps", 0)])
    path = tmp_path / "ps.py"
    path.write_text(PS_HEADER + PS_SERVE + ESTIMATOR_STRATEGY)
    with pytest.raises(runner.RunnerError, match=r"ParameterServerStrategyV1 spans 1 chief, 1 ps, 3 worker, not 4 workers"):
        runner.run(runner.Job(path, default_env, REFUSED), use_cache=False)


def test_a_coordinator_that_falls_back_to_a_local_strategy_is_refused(tmp_path, default_env):
    code = PS_SERVE + ("strategy = tf.distribute.MirroredStrategy()  # silently local: its own CPU\n"
                       "strategy.run(lambda: tf.constant(1.0))\n")
    with pytest.raises(runner.RunnerError, match="chief:0 created no ParameterServerStrategy"):
        run_ps(tmp_path, default_env, code)


def test_a_killed_runner_leaves_no_task_running(tmp_path, default_env):
    """SIGKILL the process that runs a cluster: every task ends (lifelines), none outlives it."""
    snippet = tmp_path / "sleeper.py"
    snippet.write_text(HEADER.format(n=4) + "import time, tensorflow as tf\n"
                       "strategy = tf.distribute.MultiWorkerMirroredStrategy()\ntime.sleep(600)\n")
    driver = ("import sys\nfrom pathlib import Path\nfrom tfdist_kb.proof import envs, expect, runner\n"
              "env = envs.default()\n"
              "runner.run(runner.Job(Path(sys.argv[1]), env, expect.Expectation('hangs', seconds=300)), use_cache=False)\n")
    process = subprocess.Popen([sys.executable, "-c", driver, str(snippet)], start_new_session=True)
    marker = str(snippet)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(_processes_running(marker)) < 4:
        time.sleep(0.5)
    assert len(_processes_running(marker)) == 4, "the 4 tasks did not start"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _processes_running(marker):
        time.sleep(0.5)
    assert not _processes_running(marker)


def _processes_running(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if b"tfdist_kb.proof.child" in argv and marker.encode() in argv:
            found.append(pid)
    return found


@pytest.mark.parametrize("table", ["{ worker = 1 }", "{ worker = 9 }", "{ workers = 4 }", "{ chief = 2, worker = 2 }",
                                   "4", "{ worker = true, ps = 1 }"])
def test_a_malformed_cluster_declaration_is_one_clear_error(tmp_path, table):
    path = tmp_path / "bad.py"
    path.write_text(f'# /// tfdist\n# cluster = {table}\n# [expect]\n# default = "passes"\n# ///\n')
    with pytest.raises(expect.ExpectError, match="'cluster' takes the tasks of a local cluster"):
        expect.cluster(path)


def test_cluster_declaration_orders_the_tasks(tmp_path):
    path = tmp_path / "ps.py"
    path.write_text('# /// tfdist\n# cluster = { ps = 1, worker = 2, chief = 1 }\n# [expect]\n# default = "passes"\n# ///\n')
    assert expect.cluster(path) == [("chief", 0), ("worker", 0), ("worker", 1), ("ps", 0)]
    assert json.loads(__import__("tfdist_kb.proof.cluster", fromlist=["x"]).tf_config(
        expect.cluster(path), [1, 2, 3, 4], ("worker", 1))) == {
        "cluster": {"chief": ["localhost:1"], "worker": ["localhost:2", "localhost:3"], "ps": ["localhost:4"]},
        "task": {"type": "worker", "index": 1}}


# ---- tfdist.local_cluster: the same kind of cluster for readers (and the notebooks' cells) ----

def test_local_cluster_runs_a_script_as_four_workers(tmp_path, default_env):
    from tfdist.cluster import local_cluster

    script = tmp_path / "train.py"
    script.write_text(STEP)
    outputs = local_cluster(str(script), workers=4, python=str(default_env.interpreter), show=False, timeout=300)
    assert sorted(outputs) == [f"worker:{i}" for i in range(4)]
    assert all("sum of the replica ids: 6.0" in text for text in outputs.values())


def test_local_cluster_ends_the_servers_of_a_parameter_server_cluster(tmp_path, default_env):
    from tfdist.cluster import local_cluster

    script = tmp_path / "ps.py"
    script.write_text(PS_SERVE + PS_STEPS.replace("STEPS", "8"))
    outputs = local_cluster(str(script), workers=4, chief=1, ps=1, python=str(default_env.interpreter),
                            show=False, timeout=300)
    assert sorted(outputs) == ["chief:0", "ps:0"] + [f"worker:{i}" for i in range(4)]
    assert "steps: 8 variable on /job:ps/replica:0/task:0" in outputs["chief:0"]


def test_local_cluster_gives_each_run_and_each_task_its_own_folder(tmp_path, monkeypatch):
    """Tasks share `..` with each other and with no other run (a snippet's '../shared-*' folder, as in
    the runner), each writes in its own folder, and nothing is left behind: a second run starts clean."""
    from tfdist.cluster import local_cluster

    script = tmp_path / "marks.py"
    script.write_text(
        "import json, os, time\n"
        "i = json.loads(os.environ['TF_CONFIG'])['task']['index']\n"
        "assert os.listdir('.') == [], os.listdir('.')\n"
        "open('mine', 'w').close()\n"
        "open(os.path.join('..', 'seen-%d' % i), 'w').close()\n"
        "while len([f for f in os.listdir('..') if f.startswith('seen-')]) < 2: time.sleep(0.05)\n"
        "print(os.path.basename(os.getcwd()), sorted(f for f in os.listdir('..') if f.startswith('seen-')))\n")
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        outputs = local_cluster(str(script.name), workers=2, show=False, timeout=60)
        assert outputs == {"worker:0": "task0-worker-0 ['seen-0', 'seen-1']\n",
                           "worker:1": "task1-worker-1 ['seen-0', 'seen-1']\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marks.py"]


def test_local_cluster_raises_the_failing_tasks_exception_under_its_name(tmp_path, default_env):
    from tfdist.cluster import TaskFailed, local_cluster

    script = tmp_path / "late.py"
    script.write_text("import tensorflow as tf\nx = tf.constant(1.0)\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n")
    with pytest.raises(TaskFailed) as caught:
        local_cluster(str(script), workers=4, python=str(default_env.interpreter), show=False, timeout=300)
    assert type(caught.value).__name__ == "RuntimeError" == caught.value.exception
    assert "Collective ops must be configured at program startup" in str(caught.value)
    assert caught.value.task.startswith("worker:")


def test_tfdist_cluster_command_bad_input_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "tfdist", "cluster", str(tmp_path / "missing.py")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.strip().count("\n") == 0
    assert "no such script" in result.stderr


def test_forked_and_fresh_clusters_record_the_same(tmp_path, default_env):
    """`make test` forks each task from a pre-imported TensorFlow (a cluster server per environment),
    `make matrix` starts fresh processes: both must record the same run."""
    from tfdist_kb.proof import evidence, forkpool

    code = ("import json, os\n"
            "import tensorflow as tf\n"
            "print(json.loads(os.environ['TF_CONFIG'])['cluster']['worker'])\n"
            "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
            "if json.loads(os.environ['TF_CONFIG'])['task']['index'] == 1:\n"
            "    raise KeyError('worker 1')\n")
    path = tmp_path / "same.py"
    path.write_text(HEADER.format(n=4) + code)
    job = runner.Job(path, default_env, expect.Expectation("raises", "KeyError", "worker 1"))
    try:
        forked = [runner.run(job, use_cache=False, mode="fork") for _ in range(2)]
    finally:
        forkpool.stop_all()
    fresh = runner.run(job, use_cache=False, mode="fresh")
    assert [r["mode"] for r in forked] == ["fork", "fork"] and fresh["mode"] == "fresh"
    for record in forked:
        assert evidence.differences(fresh, record) == []
    assert fresh["stdout"] == str([f"localhost:{20000 + i}" for i in range(4)])
    assert fresh["exception"] == "KeyError"


def test_a_failing_cluster_is_compared_on_what_timing_does_not_choose():
    """Which task notices a failure first words every task's error; the exception, the tasks and the
    first task's output are compared, and a passing cluster's records exactly."""
    from tfdist_kb.proof import evidence

    tasks = [{"task": f"worker:{i}", "outcome": "raised", "exception": "InvalidArgumentError", "headline": "x"}
             for i in range(4)]
    committed = {"outcome": "raised", "exception": "InvalidArgumentError", "headline": "aborted by: task:1 [2] [0]",
                 "message": "aborted by: task:1 [2] [0]", "stdout": "step 1", "tasks": tasks, "replicas": 4}
    reworded = dict(committed, headline="aborted by: aborted by: task:3 [0] [2]", message="…",
                    tasks=[dict(t, headline="y", exception="UnavailableError") for t in tasks])
    assert evidence.differences(committed, reworded) == []
    assert evidence.differences(committed, dict(reworded, exception="UnavailableError")) != []
    assert evidence.differences(committed, dict(reworded, stdout="step 2")) != []
    assert evidence.differences(committed, dict(reworded, tasks=tasks[:3])) != []
    passed = dict(committed, outcome="passed", exception=None, headline=None, message=None)
    assert evidence.differences(passed, dict(passed, tasks=[dict(t, stdout="other") for t in tasks])) != []


def _mwms_task(i, **extra):
    device = f"/job:worker/replica:0/task:{i}/device:CPU:0"
    return {"strategies": [{"class": "MultiWorkerMirroredStrategy", "replicas": 4, "devices": [device],
                            "told_tasks": 4}],
            "runtime_devices": [device], "tf_config_task": f"worker:{i}", "ran": {}, **extra}


def test_a_task_stopped_inside_its_strategys_constructor_counts_only_in_a_run_that_raised():
    """TF 2.4-2.5's MultiWorkerMirroredStrategy waits in its constructor for the whole cluster: once
    one task has raised, the others can be stopped there, with no strategy to show. In a run that
    raised, such a task is its one CPU; a task that never reached a constructor, or any of it in a
    passing run, is still refused."""
    from tfdist_kb.proof import witness

    waiting = {"strategies": [], "constructing": "MultiWorkerMirroredStrategy", "ran": {}, "runtime_devices": None}
    tasks = [("worker:0", _mwms_task(0)), ("worker:1", dict(waiting, tf_config_task="worker:1")),
             ("worker:2", dict(waiting, tf_config_task="worker:2")), ("worker:3", _mwms_task(3))]
    assert witness.cluster_problems(tasks, "raised") == []
    # and the evidence names its CPU among the 4 devices, whichever tasks were stopped this time
    assert witness.cluster_ran_on(tasks, "raised") == [f"worker:{i}/CPU:0" for i in range(4)]
    assert witness.cluster_problems(tasks, "passed")
    never = dict(tasks[1][1], constructing=None)
    assert any("worker:1: created no tf.distribute strategy" in p
               for p in witness.cluster_problems([tasks[0], ("worker:1", never)] + tasks[2:], "raised"))
    # the same worker index twice is still two tasks on one device
    twice = [tasks[0], ("worker:1", _mwms_task(0, tf_config_task="worker:1"))] + tasks[2:]
    assert witness.cluster_problems(twice, "raised")


def test_an_in_graph_strategy_over_the_whole_cluster_counts_only_in_a_run_that_raised():
    """A MirroredStrategy that read TF_CONFIG in graph mode (TFD046) puts one replica on a device of each
    task: accepted as the 4 devices of a run that raised (no task can reach the others' devices), never
    for a run that passed, nor over 3 of the 4 tasks, nor when the tasks name different clusters."""
    from tfdist_kb.proof import witness

    names = ["chief:0", "worker:0", "worker:1", "worker:2"]
    full = ["/job:chief/replica:0/task:0/device:CPU:0"] + [f"/job:worker/replica:0/task:{i}/device:CPU:0" for i in range(3)]

    def task(name, devices):
        return (name, {"strategies": [{"class": "MirroredStrategy", "replicas": len(devices), "devices": devices}],
                       "runtime_devices": ["/job:localhost/replica:0/task:0/device:CPU:0"],
                       "tf_config_task": name, "ran": {}})

    tasks = [task(n, full) for n in names]
    assert witness.cluster_problems(tasks, "raised") == []
    assert witness.cluster_ran_on(tasks, "raised") == sorted(["chief:0/CPU:0", "worker:0/CPU:0", "worker:1/CPU:0", "worker:2/CPU:0"])
    assert any("not devices of task" in p for p in witness.cluster_problems(tasks, "passed"))
    three = [task(n, full[:3]) for n in names]
    assert witness.cluster_problems(three, "raised")
    other = full[:3] + ["/job:worker/replica:0/task:3/device:CPU:0"]
    assert witness.cluster_problems([task(n, full) for n in names[:3]] + [task(names[3], other)], "raised")
    assert witness.cluster_problems([task(n, full) for n in names[:2]] + [task(n, full[:2] + full[2:][::-1]) for n in names[2:]], "raised") == []


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("import json, os, sys, time\n"
                    "task = json.loads(os.environ['TF_CONFIG'])['task']\n"
                    "me = '%s:%d' % (task['type'], task['index'])\n" + body)
    return str(path)


def test_local_cluster_leads_with_a_task_that_raised_over_one_that_crashed_earlier(tmp_path):
    """The lead rule of tfdist.local_cluster, on plain Python tasks: worker:0 dies first without an
    exception, worker:2 raises later; the one that raised says what went wrong and leads. With no
    task raising, the first one that crashed leads; every task ends (the others are stopped)."""
    from tfdist.cluster import TaskFailed, local_cluster

    script = _script(tmp_path, "lead.py",
                     "if me == 'worker:0':\n    os._exit(3)\n"
                     "if me == 'worker:2':\n    time.sleep(1.0)\n    raise ValueError('worker 2 saw a bad shard')\n"
                     "time.sleep(120)\n")
    with pytest.raises(TaskFailed) as caught:
        local_cluster(script, workers=4, python=sys.executable, show=False, timeout=60)
    assert (caught.value.task, caught.value.exception) == ("worker:2", "ValueError")
    assert type(caught.value).__name__ == "ValueError" and "worker 2 saw a bad shard" in str(caught.value)

    crashed = _script(tmp_path, "crash.py", "if me == 'worker:1':\n    os._exit(3)\ntime.sleep(120)\n")
    started = time.monotonic()
    with pytest.raises(TaskFailed) as caught:
        local_cluster(crashed, workers=3, python=sys.executable, show=False, timeout=60)
    assert caught.value.task == "worker:1" and caught.value.exception is None
    assert time.monotonic() - started < 60, "the others were not stopped after the grace period"


def test_local_cluster_never_leads_with_a_server_of_a_parameter_server_cluster(tmp_path):
    """A worker or parameter server that ends by itself is the coordinator's business: the chief's
    own exception leads."""
    from tfdist.cluster import TaskFailed, local_cluster

    script = _script(tmp_path, "ps.py",
                     "if me == 'ps:0':\n    raise OSError('parameter server lost')\n"
                     "if me == 'chief:0':\n    time.sleep(1.0)\n    raise RuntimeError('the coordinator gave up')\n"
                     "time.sleep(120)\n")
    with pytest.raises(TaskFailed) as caught:
        local_cluster(script, workers=2, chief=1, ps=1, python=sys.executable, show=False, timeout=60)
    assert (caught.value.task, caught.value.exception) == ("chief:0", "RuntimeError")


def _ps_raised(lead_task="chief:0", exception="ValueError"):
    tasks = [{"task": "chief:0", "outcome": "raised", "exception": exception, "headline": "x"}]
    tasks += [{"task": f"worker:{i}", "outcome": "served", "stdout": ""} for i in range(4)]
    tasks += [{"task": "ps:0", "outcome": "served", "stdout": ""}]
    return {"outcome": "raised", "exception": exception, "message": "x not found", "headline": "x not found",
            "tasks": tasks}


@pytest.mark.parametrize("record, task, problem", [
    (_ps_raised(), "chief:0", None),
    (_ps_raised(), "worker:1", "expected worker:1 to raise ValueError, but it served"),
    (_ps_raised(exception="KeyError"), "chief:0", "expected chief:0 to raise ValueError, but it raised KeyError"),
    (_ps_raised(), "worker:7", "the cluster has no such task"),
    ({"outcome": "raised", "exception": "ValueError", "message": "x not found"}, "chief:0", "the run is not a cluster's"),
])
def test_an_expectation_that_names_the_raising_task_holds_only_where_that_task_raised(record, task, problem):
    """`raises = ..., task = "chief:0"`: the whole run raising is not enough, the named task must have
    raised the declared exception (the coordinator of a parameter-server cluster, not a server)."""
    declared = expect._parse_one("x", {"raises": "ValueError", "match": "not found", "task": task})
    found = declared.judge(record)
    assert (found == []) if problem is None else any(problem in f for f in found), found


@pytest.mark.parametrize("value", [{"passes": 1, "task": "chief:0"}, {"raises": "E", "match": "m", "task": "chief"},
                                   {"raises": "E", "match": "m", "task": "localhost:0"}, {"prints": "x", "task": "chief:0"}])
def test_a_task_outside_a_raises_expectation_or_misnamed_is_an_expect_error(value):
    with pytest.raises(expect.ExpectError):
        expect._parse_one("x", value)
