"""pytest plugin (loaded by pyproject's addopts): the snippet matrix as tests, and 4 replicas
for the inline code blocks that pytest-codeblocks runs inside the pytest process.

TFDIST_ENVS selects environments: unset or 'all' (make test), 'default' (make test-fast),
or a comma-separated list of names. Snippets run forked from a pre-imported TensorFlow where that
is safe (runner.mode_of); TFDIST_MODE=fresh runs each in a new interpreter, as `make matrix` does.
"""
from __future__ import annotations

import os
import sys

import pytest

from . import envs, expect, runner

_replicas_ready = False
_RESULTS = pytest.StashKey[dict]()
_BLOCKS = pytest.StashKey[int]()


def pytest_configure(config):
    """`bash` blocks on the pages call the project's commands (`tfdist ...`): find them next to
    this interpreter, however pytest was started."""
    here = os.path.dirname(sys.executable)
    if here not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")


def selected_envs():
    try:
        return envs.select(os.environ.get("TFDIST_ENVS") or "all")
    except envs.EnvError as error:
        raise pytest.UsageError(f"TFDIST_ENVS: {error}") from None


def pytest_generate_tests(metafunc):
    if "job" not in metafunc.fixturenames:
        return
    params, ids = [], []
    for path in runner.snippet_files():
        rel = f"{path.parent.name}/{path.name}"
        try:
            table = runner.expectations(path)
        except expect.ExpectError as error:
            params.append(error)
            ids.append(f"{rel}@declaration")
            continue
        for env in selected_envs():
            params.append(runner.Job(path, env, table[env.name]))
            ids.append(f"{rel}@{env.name}")
    metafunc.parametrize("job", params, ids=ids)


@pytest.fixture(scope="session")
def matrix(request):
    """Every (snippet, environment) result, run in parallel once per session (cached on inputs)."""
    well_formed = []
    for path in runner.snippet_files():
        try:
            runner.expectations(path)
            well_formed.append(path)
        except expect.ExpectError:
            continue  # reported by its own test
    use_cache = os.environ.get("TFDIST_NO_CACHE") != "1"
    mode = os.environ.get("TFDIST_MODE") or "fork"  # fresh processes: TFDIST_MODE=fresh
    try:
        _, results, _ = runner.run_matrix(selected_envs(), use_cache, well_formed, mode=mode)
    except envs.EnvError as error:
        pytest.exit(f"tfdist: {error}", returncode=3)
    request.config.stash[_RESULTS] = results
    return results


def _is_codeblock(item) -> bool:
    return type(item).__module__.startswith("pytest_codeblocks")


def pytest_runtest_setup(item):
    global _replicas_ready
    if not _is_codeblock(item):
        return
    if not _replicas_ready:
        from .replicas import provide_replicas

        provide_replicas()
        _replicas_ready = True
    import tensorflow as tf

    devices = tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU")
    assert len(devices) == runner.REPLICAS, f"inline blocks need {runner.REPLICAS} devices, found {devices}"
    item.config.stash[_BLOCKS] = item.config.stash.get(_BLOCKS, 0) + 1


def pytest_terminal_summary(terminalreporter, config):
    """Say on how many replicas things really ran: the figure the site promises."""
    results = config.stash.get(_RESULTS, None)
    if results is not None:
        records = [r for r in results.values() if isinstance(r, dict)]
        ran = [r for r in records if r["outcome"] not in ("not-applicable", "timed-out")]
        replicas = sorted({str(r.get("replicas")) for r in ran})
        devices = sorted({r.get("devices") for r in ran if r.get("devices")})
        envs_seen = sorted({r["env"] for r in records})
        terminalreporter.write_line(
            f"tfdist: {len(results)} snippet runs in {len(envs_seen)} environment(s): {len(ran)} executed on "
            f"{'/'.join(replicas) or '-'} replicas ({'; '.join(devices)}), "
            f"{sum(r['outcome'] == 'timed-out' for r in records)} documented hang(s), "
            f"{sum(r['outcome'] == 'not-applicable' for r in records)} not applicable (reason recorded), "
            f"{len(results) - len(records)} could not run")
    blocks = config.stash.get(_BLOCKS, 0)
    if blocks:
        terminalreporter.write_line(f"tfdist: {blocks} inline code block(s) executed with {runner.REPLICAS} devices")
