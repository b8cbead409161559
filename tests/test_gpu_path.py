"""The runner's device selection (replicas.plan, provide_replicas) against simulated device lists,
the reduction each run records, and `tfdist gpu-check` as far as a machine without GPUs can go."""
import os
import subprocess
import sys

import pytest

from tfdist_kb.proof import envs, replicas, witness
from tfdist_kb.commands import gpucheck


@pytest.mark.parametrize("gpus, kind, visible, split", [
    (0, "logical CPUs", 0, "CPU:0"),
    (1, "logical GPUs", 1, "GPU:0"),
    (2, "logical GPUs", 1, "GPU:0"),
    (3, "logical GPUs", 1, "GPU:0"),
    (4, "physical GPUs", 4, None),
    (8, "physical GPUs", 4, None),
])
def test_plan_for_each_gpu_count(gpus, kind, visible, split):
    chosen = replicas.plan(gpus)
    assert (chosen["kind"], chosen["visible"], chosen["split"]) == (kind, visible, split)


def test_plan_refuses_what_is_not_a_count():
    with pytest.raises(ValueError, match="must be counts"):
        replicas.plan(-1)


class _Machine:
    """tf.config's four calls over a simulated list of physical devices; records what is asked."""

    def __init__(self, gpus, cpus=1):
        self.devices = {"GPU": [f"/physical_device:GPU:{i}" for i in range(gpus)],
                        "CPU": [f"/physical_device:CPU:{i}" for i in range(cpus)]}
        self.visible, self.logical = None, {}

    def config(self):
        return (lambda kind: list(self.devices[kind]), self.set_logical, self.LogicalConfig, self.set_visible)

    def set_logical(self, device, configs):
        self.logical[device] = configs

    def set_visible(self, devices, kind):
        self.visible = (list(devices) if isinstance(devices, list) else [devices], kind)

    class LogicalConfig:
        def __init__(self, memory_limit=None):
            self.memory_limit = memory_limit


def test_no_gpu_splits_the_cpu_into_four():
    machine = _Machine(gpus=0)
    assert replicas.provide_replicas(config=machine.config()) == "4 logical CPU devices"
    assert list(machine.logical) == ["/physical_device:CPU:0"]
    assert [c.memory_limit for c in machine.logical["/physical_device:CPU:0"]] == [None] * 4
    assert machine.visible is None


@pytest.mark.parametrize("gpus", [1, 2, 3])
def test_fewer_than_four_gpus_split_the_first_and_hide_the_others(gpus):
    machine = _Machine(gpus=gpus)
    assert replicas.provide_replicas(config=machine.config()) == "1 physical GPU split into 4 logical GPUs"
    assert machine.visible == (["/physical_device:GPU:0"], "GPU")
    configs = machine.logical["/physical_device:GPU:0"]
    assert len(configs) == 4 and len({id(c) for c in configs}) == 4
    assert {c.memory_limit for c in configs} == {replicas.GPU_MEMORY_MB}


def test_four_gpus_are_used_as_they_are():
    machine = _Machine(gpus=4)
    assert replicas.provide_replicas(config=machine.config()) == "4 physical GPUs"
    assert machine.visible is None and machine.logical == {}


def test_more_than_four_gpus_keep_the_first_four():
    machine = _Machine(gpus=8)
    assert replicas.provide_replicas(config=machine.config()) == "4 physical GPUs"
    assert machine.visible == ([f"/physical_device:GPU:{i}" for i in range(4)], "GPU")
    assert machine.logical == {}


class NcclAllReduce:
    pass


class ReductionToOneDevice:
    pass


class CollectiveAllReduce:
    def __init__(self, implementation):
        self._options = type("Options", (), {"implementation": type("Enum", (), {"name": implementation})()})()


class _Strategy:
    def __init__(self, **extended):
        self.extended = type("Extended", (), extended)()


def test_reduction_is_the_given_one_else_the_inferred_one():
    assert witness.reduction(_Strategy(_cross_device_ops=NcclAllReduce(), _inferred_cross_device_ops=None)) == "NcclAllReduce"
    assert witness.reduction(_Strategy(_cross_device_ops=None, _inferred_cross_device_ops=ReductionToOneDevice())) \
        == "ReductionToOneDevice"
    assert witness.reduction(_Strategy(_cross_device_ops=CollectiveAllReduce("RING"))) == "CollectiveAllReduce (RING)"
    assert witness.reduction(_Strategy()) is None


def test_machine_name_counts_each_model():
    assert gpucheck.machine_name(["NVIDIA H200"] * 4) == "gpu-4xNVIDIA-H200"
    assert gpucheck.machine_name(["NVIDIA A100-SXM4-80GB", "Tesla T4"]) == "gpu-1xNVIDIA-A100-SXM4-80GB+1xTesla-T4"


@pytest.mark.skipif(bool(gpucheck.gpu_names()), reason="this machine has GPUs")
def test_gpu_check_without_gpu_is_one_line():
    done = subprocess.run([sys.executable, "-m", "tfdist_kb.commands.cli", "gpu-check"], capture_output=True, text=True,
                          env=dict(os.environ, TFDIST_GPU_CHECK_ON_CPU=""))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no GPU on this machine" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.matrix
def test_gpu_check_runs_a_snippet_and_records_devices_and_reduction(tmp_path):
    """The check's own path, on the 4 logical CPUs of this machine: one passing snippet, its table row
    and its evidence file. On CPUs TensorFlow 2.21's MirroredStrategy all-reduces with collective ops
    over a ring (`_make_collective_ops_with_fallbacks`); NCCL is kept for physical GPUs."""
    env = envs.default()
    envs.ensure(env, log=lambda *a: None)
    rows, _ = gpucheck.check(env, env, "test-machine", workers=1, pattern="TFD001/build_optimizer_in_scope.py",
                             log=lambda *a, **k: None)
    [row] = rows
    assert (row["outcome"], row["verdict"], row["replicas"]) == ("passed", "as expected", 4)
    assert row["devices"] == "4 logical CPU devices"
    assert row["reduction"] == "CollectiveAllReduce (RING)"
    printed = gpucheck.table(rows).splitlines()
    assert printed[0].split() == ["snippet", "outcome", "seconds", "replicas", "devices", "reduction", "verdict"]
    assert printed[1].startswith("TFD001/build_optimizer_in_scope.py  passed")
    path = gpucheck.save(rows, "test-machine", {"tensorflow": "x"}, env, tmp_path / "m.json")
    assert '"env": "test-machine"' in path.read_text()


def test_a_given_interpreter_may_be_a_relative_path_into_a_virtual_environment(tmp_path, monkeypatch):
    """GPU_PYTHON=.venv-gpu/bin/python: the runs start in scratch folders, so the interpreter is
    made absolute; a virtual environment's python is a link out of it, so it is not resolved (the
    environment's pyvenv.cfg, which names the Python version, is found beside bin/)."""
    from tfdist_kb.commands import gpucheck

    venv = tmp_path / "venv-gpu"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)
    env = gpucheck.GpuEnv(name="given", python="", about="", environ={}, given="venv-gpu/bin/python")
    assert env.interpreter == venv / "bin" / "python" and env.interpreter.is_absolute()
    assert env.path == venv and env.python_version() == "3.11.7"
