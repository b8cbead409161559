"""The witness reads the eager runtime's devices from the moment the runtime starts, in every
TensorFlow environment: a cluster task stopped by the launcher before its final save still proves
its device from an earlier save. TF 2.0 has no `_initialized` flag on its context (later releases
do); there the runtime has started once the context has a handle (the cause of a refused
TFD036/uneven_rows.py@tf2.0.4 run in a fresh-clone `make test`: 'cannot tell which devices exist')."""
import json
import os
import subprocess

import pytest

from tfdist_kb.commands import pytest_plugin
from tfdist_kb.proof import envs

pytestmark = pytest.mark.matrix

PROBE = (
    "import json\n"
    "import tensorflow as tf\n"
    "from tensorflow.python.eager import context\n"
    "from tfdist_kb.proof.witness import Witness\n"
    "witness = Witness('unused')\n"
    "before = witness.runtime_devices()\n"
    "with context.eager_mode():\n"  # TF 1.x builds graphs by default (TF 1.13 refuses enable_eager_execution here)
    "    tf.constant(1.0) + 1.0\n"  # the first op starts the runtime
    "print(json.dumps([before, witness.runtime_devices()]))\n")

ENVS = pytest_plugin.selected_envs()


@pytest.mark.parametrize("env", ENVS, ids=[e.name for e in ENVS])
def test_runtime_devices_are_read_once_the_runtime_started(env):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    environ = dict(env.process_environ(), PYTHONPATH=str(envs.ROOT), CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([str(env.interpreter), "-c", PROBE], capture_output=True, text=True, env=environ,
                          cwd=envs.ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert before is None, f"{env.name}: devices read before any op started the runtime: {before}"
    assert after and any(name.endswith("/device:CPU:0") for name in after), f"{env.name}: after the first op: {after}"
