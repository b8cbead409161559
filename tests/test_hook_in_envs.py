"""`tfdist.install()` in every TensorFlow environment: a real TensorFlow exception, raised by one of
our raising snippets and left uncaught, ends with one more line naming its entry and URL; an
exception that matches no entry prints nothing extra; the exit status is Python's own."""
import json
import os
import subprocess
import sys

import pytest

import tfdist
from tfdist_kb.proof import envs, evidence, messages
from tfdist_kb.site import errors
from tfdist_kb.commands import pytest_plugin

PACKAGE = envs.ROOT / "tfdist" / "src"
RUN_UNDER_HOOK = (
    "import runpy, sys\n"
    "from tfdist_kb.proof.replicas import provide_replicas\n"
    "provide_replicas()\n"
    "import tfdist\n"
    "tfdist.install()\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n")
UNKNOWN = "import tfdist\ntfdist.install()\nraise ValueError('a message no entry answers: 42 bananas')\n"


def fastest_raising_run(env_name):
    """The quickest recorded run in `env_name` that raised a message the matcher answers with the
    run's own entry (a message that several entries explain may rank another first: that is the
    matcher's business, tested in test_signatures; here the hook's path in a real process is)."""
    data = tfdist.load(errors.PACKAGE_DATA)
    runs = [r for r in evidence.load().values() if r["env"] == env_name and r["outcome"] == "raised"
            and (tfdist.lookup(messages.printed(r["exception"], r["message"], r["headline"]), data) or {}).get("id")
            == r["snippet"].split("/")[1]]
    return min(runs, key=lambda r: (r["seconds"], r["snippet"])) if runs else None


def run_in(env, code, *args):
    environ = env.process_environ()
    environ["PYTHONPATH"] = os.pathsep.join([str(envs.ROOT), str(PACKAGE)])
    environ.pop(errors.BASE_URL_VARIABLE, None)
    return subprocess.run([str(env.interpreter), "-c", code, *args], capture_output=True, text=True,
                          env=environ, cwd=envs.ROOT, timeout=600)


ENVS = pytest_plugin.selected_envs()


@pytest.mark.parametrize("env", ENVS, ids=[e.name for e in ENVS])
def test_uncaught_tensorflow_error_names_its_entry(env):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    record = fastest_raising_run(env.name)
    if record is None:
        pytest.skip(f"no snippet raises on {env.name}")
    entry = record["snippet"].split("/")[1]
    url = json.loads(errors.PACKAGE_DATA.read_text())["base_url"] + f"e/{entry}/"
    result = run_in(env, RUN_UNDER_HOOK, str(envs.ROOT / record["snippet"]))
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1, result.stderr[-2000:]
    assert any(line.startswith(f"{record['exception']}") or f".{record['exception']}:" in line
               for line in lines), result.stderr[-2000:]
    assert entry in lines[-1] and url in lines[-1], f"last line: {lines[-1]!r}"
    assert sum(url in line for line in lines) == 1


@pytest.mark.parametrize("env", ENVS, ids=[e.name for e in ENVS])
def test_unknown_error_prints_nothing_extra(env):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    result = run_in(env, UNKNOWN)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1 and lines[-1] == "ValueError: a message no entry answers: 42 bananas", result.stderr
