"""A snippet that sets up its own devices (`configures-devices` in its tfdist block, TFD020): the runner
configures nothing before it, in a fresh process as in a fork, and still holds its run to the 4-device
proof. Without the declaration the runner's 4 devices are there before the snippet's first line."""
import pytest

from tfdist_kb.proof import child, envs, expect, runner

pytestmark = pytest.mark.matrix

OWN = '# /// tfdist\n# configures-devices = "it splits the CPU itself"\n# [expect]\n# default = "passes"\n# ///\n'
PLAIN = '# /// tfdist\n# [expect]\n# default = "passes"\n# ///\n'
STEP = ("strategy = tf.distribute.MirroredStrategy()\n"
        "ids = strategy.run(tf.function(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))\n"
        "print(sorted(int(i) for i in strategy.experimental_local_results(ids)))\n")
SPLIT = ("cpu = tf.config.list_physical_devices('CPU')[0]\n"
         "tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)\n")


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def write(tmp_path, name, header, code):
    path = tmp_path / name
    path.write_text(header + "import tensorflow as tf\n" + code)
    return path


@pytest.mark.parametrize("mode", ["fresh", "fork"])
def test_nothing_is_configured_before_a_snippet_that_configures_its_devices(tmp_path, default_env, mode):
    # With nothing set up, MirroredStrategy() sees the one CPU: the run is refused, not recorded.
    bare = write(tmp_path, "bare.py", OWN, STEP)
    with pytest.raises(runner.RunnerError, match="1 replica"):
        runner.run(runner.Job(bare, default_env, expect.Expectation("passes")), use_cache=False, mode=mode)
    # The snippet's own split gives the 4 replicas, and the record says who set them up.
    own = runner.run(runner.Job(write(tmp_path, "own.py", OWN, SPLIT + STEP), default_env,
                                expect.Expectation("passes")), use_cache=False, mode=mode)
    assert own["outcome"] == "passed" and own["devices"] == child.OWN_DEVICES and own["mode"] == mode, own
    assert len(set(own["ran_on"])) == 4 and "[0, 1, 2, 3]" in own["stdout"]
    # Without the declaration the runner's 4 devices exist before the first line: the same split
    # then changes nothing, and the bare snippet passes on them.
    plain = runner.run(runner.Job(write(tmp_path, "plain.py", PLAIN, STEP), default_env,
                                  expect.Expectation("passes")), use_cache=False, mode=mode)
    assert plain["outcome"] == "passed" and plain["devices"] != child.OWN_DEVICES and len(set(plain["ran_on"])) == 4
    assert plain["mode"] == mode


@pytest.mark.parametrize("header, problem", [
    ('# /// tfdist\n# configures-devices = ""\n# [expect]\n# default = "passes"\n# ///\n', "takes the reason"),
    ('# /// tfdist\n# configures-devices = true\n# [expect]\n# default = "passes"\n# ///\n', "takes the reason"),
    ('# /// tfdist\n# [expect]\n# configures-devices = "x"\n# default = "passes"\n# ///\n', "configures-devices"),
    ('# /// tfdist\n#configures-devices = "x"\n# [expect]\n# default = "passes"\n# ///\n', "on a line of its own"),
])
def test_a_malformed_declaration_is_named(tmp_path, header, problem):
    path = write(tmp_path, "s.py", header, "")
    with pytest.raises(expect.ExpectError, match=problem):
        expect.read(path, [e.name for e in envs.load()])
        expect.configures_devices(path)


def test_the_child_and_the_declaration_agree():
    assert child.configures_devices(OWN + "x = 1\n") and not child.configures_devices(PLAIN)
    assert not child.configures_devices('# configures-devices = "outside the block"\n' + PLAIN)
    for path in runner.snippet_files():
        assert bool(expect.configures_devices(path)) == child.configures_devices(path.read_text()), path
