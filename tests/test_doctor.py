"""`tfdist.doctor` in every TensorFlow environment, on the knowledge base's own snippets.

Each snippet runs as the runner runs it (forked from the environment's pre-imported TensorFlow, 4
replicas, the run judged against the snippet's declaration), wrapped: after the snippet, the
doctor inspects the snippet's `strategy`, `model` (and `loaded`, the model a TFD004 snippet loads; other
entries' snippets load models only to compare predictions)
and `optimizer`, and its findings are written as JSON. A silent failure (a snippet declared
`prints` in an environment) must get its own entry; a passing snippet no finding at all; the
findings of one snippet are the same in a second run. Wrong arguments get a TypeError or
ValueError naming the argument; TensorFlow 1.x gets a clear refusal.
"""
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tfdist_kb import envs, errors, expect, forkpool, pytest_plugin, runner
from tfdist.doctor import CHECKS

pytestmark = pytest.mark.matrix

PACKAGE = envs.ROOT / "tfdist" / "src"
# Passing runs that are not correct distributed code, with the finding the doctor must make there
# instead of none: on TF 2.4 this snippet trains a model built outside the scope with an ordinary,
# non-distributed step (it "passes"; TFD003 shows it), so its weights and slots are plain variables.
NOT_FIXES = {("TFD003/optimizer_in_scope_model_outside.py", "tf2.4"): ["TFD001", "TFD002"]}

WRAPPER = '''# /// tfdist
{fresh}# [expect]
# default = "passes"
# ///
# Runs {snippet} as the runner would (the same namespace as `python snippet.py`), then the doctor on
# what it left; the snippet's own exception, if any, is raised again after that, so the run's outcome
# is the snippet's. exec rather than runpy.run_path: a snippet that raises keeps its globals.
import json
import sys
import traceback

sys.path.insert(0, {package!r})
namespace = {{"__name__": "__main__", "__file__": {snippet!r}, "__builtins__": __builtins__}}
failure = None
try:
    with open({snippet!r}) as handle:
        exec(compile(handle.read(), {snippet!r}, "exec"), namespace)
except BaseException as error:  # the snippet's outcome, judged by the runner
    failure = error
report = {{"snippet_raised": failure is not None, "calls": {{}}}}
import tfdist

for name in ("model", "loaded"):  # `loaded`: the model a TFD004 snippet revives, to train it on
    if "strategy" not in namespace:  # made inside a function of the snippet: nothing left to inspect
        break
    if name == "model" or (name in namespace and "/TFD004/" in {snippet!r}):
        try:
            first = tfdist.doctor(namespace.get("strategy"), model=namespace.get(name),
                                  optimizer=namespace.get("optimizer"))
            again = tfdist.doctor(namespace.get("strategy"), model=namespace.get(name),
                                  optimizer=namespace.get("optimizer"))
            report["calls"][name] = {{"findings": first, "same_when_called_again": first == again,
                                     "printed": str(first)}}
        except Exception as error:
            report["calls"][name] = {{"error": type(error).__name__, "message": str(error),
                                     "traceback": traceback.format_exc()[-3000:]}}
with open({out!r}, "w") as handle:
    json.dump(report, handle)
if failure is not None:
    raise failure
'''


def _tensorflow_major(env):
    pins = env.pins()
    version = pins.get("tensorflow") or pins.get("tensorflow-cpu") or "0"
    return int(version.split(".")[0])


ENVS = [e for e in pytest_plugin.selected_envs() if not e.only]
DOCTOR_ENVS = [e for e in ENVS if _tensorflow_major(e) >= 2]
TF1_ENVS = [e for e in ENVS if _tensorflow_major(e) < 2]


def _cases():
    out = []
    for path in runner.snippet_files():
        table = runner.expectations(path)
        for env in DOCTOR_ENVS:
            if table[env.name].kind != "not-applicable":
                out.append((path, env, table[env.name]))
    return out


CASES = _cases()


def _wrapped(path, env, expectation, folder, tag=""):
    """A runner.Job for `path` wrapped with the doctor, and where its report will be."""
    rel = f"{path.parent.name}/{path.name}"
    stem = f"{env.name}-{path.parent.name}-{path.stem}{tag}"
    out = folder / f"{stem}.json"
    fresh = expect.fresh_process(path)
    wrapper = folder / f"{stem}.py"
    wrapper.write_text(WRAPPER.format(
        fresh=f"# fresh-process = {json.dumps(fresh)}\n" if fresh else "", snippet=str(path),
        package=str(PACKAGE), out=str(out)))
    return rel, runner.Job(wrapper, env, expectation), out


def _run(job, out):
    """(report, problems): the doctor's report, and what went wrong with the wrapped run."""
    try:
        record = runner._execute(job, runner.TIME_LIMIT, mode=os.environ.get("TFDIST_MODE") or "fork")
    except runner.RunnerError as error:
        return None, [str(error)]
    problems = runner.judge(job, record)
    try:
        report = json.loads(out.read_text())
    except (OSError, ValueError):
        tail = (record.get("traceback") or record.get("stderr_tail") or "")[-1500:]
        return None, problems + [f"the wrapper wrote no report:\n{tail}"]
    return report, problems


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Every (snippet, environment) wrapped run, 2 at a time; then, per environment, one snippet
    that got findings run once more (the second run goes under the key (rel, env, 'again'))."""
    ready = [env for env in DOCTOR_ENVS if envs.is_ready(env)]  # the others' tests are skipped
    folder = tmp_path_factory.mktemp("doctor")
    jobs = [_wrapped(path, env, expectation, folder) for path, env, expectation in CASES if env in ready]
    jobs.sort(key=lambda item: ready.index(item[1].env))  # one environment after the other (forkpool)
    workers = int(os.environ.get("TFDIST_WORKERS", "2"))
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = list(pool.map(lambda item: _run(item[1], item[2]), jobs))
        results = {(rel, job.env.name): result for (rel, job, _), result in zip(jobs, done)}
        again = []
        for env in ready:
            with_findings = [(path, e, x) for path, e, x in CASES if e is env
                             and _found(results[(f"{path.parent.name}/{path.name}", env.name)])]
            # a silent failure first; else a snippet that raised, but not one whose replicas disagree:
            # a step stopped by an error leaves its replicas wherever thread timing left them
            with_findings.sort(key=lambda c: (c[2].kind != "prints", "TFD003" in _ids(
                results[(f"{c[0].parent.name}/{c[0].name}", env.name)]), str(c[0])))
            if with_findings:
                again.append(_wrapped(*with_findings[0], folder, tag="-again"))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = list(pool.map(lambda item: _run(item[1], item[2]), again))
        results.update({(rel, job.env.name, "again"): result for (rel, job, _), result in zip(again, done)})
    finally:
        forkpool.stop_all()
    _print_table(results)
    return results


def _found(result):
    report, _ = result
    if report is None:
        return []
    return [f for call in report["calls"].values() for f in call.get("findings") or []]


def _ids(result):
    return sorted({f["id"] for f in _found(result)})


def _print_table(results):
    """The findings table (snippet, environment, finding), for the record of a test run (-s)."""
    lines = ["tfdist.doctor on the snippets: snippet | environment | declared | findings"]
    for path, env, expectation in CASES:
        rel = f"{path.parent.name}/{path.name}"
        if (rel, env.name) not in results:
            continue
        report, problems = results[(rel, env.name)]
        found = "; ".join(f"{name}: {f['id']} {f['severity']}" for name, call in (report or {}).get("calls", {}).items()
                          for f in call.get("findings") or []) or "-"
        if report is None or problems:
            found = "RUN FAILED"
        lines.append(f"{rel} | {env.name} | {expectation.kind} | {found}")
    print("\n".join(lines))


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.name}@{e.name}" for p, e, _ in CASES])
def test_doctor_on_snippet(case, reports):
    path, env, expectation = case
    rel = f"{path.parent.name}/{path.name}"
    if (rel, env.name) not in reports:
        pytest.skip(f"environment {env.name} is not built")
    report, problems = reports[(rel, env.name)]
    assert not problems, f"{rel} on {env.name}, wrapped with the doctor:\n" + "\n".join(problems)
    failed = {name: call for name, call in report["calls"].items() if "error" in call}
    assert not failed, f"the doctor failed on {rel} ({env.name}): {failed}"
    for name, call in report["calls"].items():
        assert call["same_when_called_again"], f"{name}: a second call in the same process found otherwise"
        assert call["printed"].count("\n") + 1 == max(1, len(call["findings"]))
        for finding in call["findings"]:
            assert finding["severity"] in ("error", "warning") and finding["message"]
            assert finding["url"].endswith(f"e/{finding['id']}/") or finding["id"] == "verification"
    found = _ids((report, problems))
    if expectation.kind == "prints" and path.parent.name in set(CHECKS.values()):
        # a silent failure the doctor has a check for: its own entry is named
        assert path.parent.name in found, f"{rel} on {env.name}: a silent failure of {path.parent.name}, found {found}"
    elif expectation.kind == "prints":
        # a silent failure no check can see from the objects (a loss scaled by the per-replica batch,
        # an accumulator outside the model, a dataset's split): nothing is claimed but known entries
        assert set(found) <= set(CHECKS.values()), f"{rel} on {env.name}: {_found((report, problems))}"
    elif expectation.kind == "passes":
        wanted = NOT_FIXES.get((rel, env.name))
        if wanted:
            assert found == wanted, f"{rel} on {env.name}: {_found((report, problems))}"
        else:
            assert found == [], f"a false alarm on a passing snippet: {_found((report, problems))}"


@pytest.mark.parametrize("env", DOCTOR_ENVS, ids=[e.name for e in DOCTOR_ENVS])
def test_findings_are_stable_across_runs(env, reports):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    again = [key for key in reports if len(key) == 3 and key[1] == env.name]
    if not again:
        pytest.fail(f"no snippet got a finding on {env.name}: nothing to compare")
    rel = again[0][0]
    first, second = reports[(rel, env.name)], reports[again[0]]
    assert not second[1], second[1]
    assert _stable(first[0]["calls"]) == _stable(second[0]["calls"]), f"{rel} on {env.name}: the two runs differ"
    print(f"{rel} on {env.name}, run twice:", *(_found(r) for r in (first, second)), sep="\n  ")


def _stable(calls):
    """The findings without the size of the largest difference between replicas and the variable it
    is in: where replicas update a plain slot concurrently (built outside the scope), both depend on
    thread timing; which variables differ, and everything else, does not."""
    largest = re.compile(r"the largest difference is \S+, in .+?: an update")
    return {name: [dict(f, message=largest.sub("the largest difference is N, in V: an update", f["message"]))
                   for f in call.get("findings") or []] for name, call in calls.items()}


# ---------------------------------------------------------------- arguments

ARGUMENTS = r'''
import json, sys
from tfdist_kb.replicas import provide_replicas
provide_replicas()
import tensorflow as tf
import tfdist

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    optimizer = tf.keras.optimizers.Adam(0.01)
inputs = tf.keras.Input(shape=(3,))
plain = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
keras3 = any(c.__name__ == "TFOptimizer" for c in type(optimizer).__mro__)  # Keras 3's TensorFlow optimizer
out = {"keras3": keras3}

def case(name, call):
    try:
        value = call()
        out[name] = {"returned": value, "printed": str(value)}
    except tfdist.DoctorError as error:
        out[name] = {"raised": "DoctorError", "message": str(error), "findings": error.findings}
    except Exception as error:
        out[name] = {"raised": type(error).__name__, "message": str(error)}

case("model as strategy", lambda: tfdist.doctor(model))
case("None everywhere", lambda: tfdist.doctor(None, None, None))
case("a string as strategy", lambda: tfdist.doctor("MirroredStrategy"))
case("strategy as model", lambda: tfdist.doctor(strategy, model=strategy))
case("optimizer as model", lambda: tfdist.doctor(strategy, model=optimizer))
case("number as model", lambda: tfdist.doctor(strategy, model=3))
case("model as optimizer", lambda: tfdist.doctor(strategy, model=model, optimizer=model))
case("bad raise_on", lambda: tfdist.doctor(strategy, model=model, raise_on="fatal"))
case("TF 1 strategy", lambda: tfdist.doctor(tf.compat.v1.distribute.MirroredStrategy(), model=model))
case("inside tf.function", lambda: tf.function(lambda: tfdist.doctor(strategy, model=model))())
case("model outside the scope", lambda: tfdist.doctor(strategy, model=plain))
other = tf.distribute.MirroredStrategy()
with other.scope():
    inputs = tf.keras.Input(shape=(3,))
    foreign = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
case("another strategy's model", lambda: tfdist.doctor(strategy, model=foreign))
case("one replica", lambda: tfdist.doctor(tf.distribute.MirroredStrategy(["/cpu:0"])))
case("default strategy, plain model", lambda: tfdist.doctor(tf.distribute.get_strategy(), model=plain))
case("default strategy, mirrored model", lambda: tfdist.doctor(tf.distribute.get_strategy(), model=model))
case("raise_on error", lambda: tfdist.doctor(strategy, model=plain, raise_on="error"))
if keras3:
    case("not built, keras 3", lambda: tfdist.doctor(strategy, model=model, optimizer=optimizer))
    case("not built, raise_on error", lambda: tfdist.doctor(strategy, model, optimizer, raise_on="error"))
    case("not built, raise_on warning", lambda: tfdist.doctor(strategy, model, optimizer, raise_on="warning"))
    outside = tf.keras.optimizers.Adam(0.01)
    case("optimizer constructed outside, keras 3", lambda: tfdist.doctor(strategy, optimizer=outside))
if hasattr(optimizer, "build"):
    with strategy.scope():
        optimizer.build(model.trainable_variables)
case("correct", lambda: tfdist.doctor(strategy, model=model, optimizer=optimizer, raise_on="warning"))
print("REPORT " + json.dumps(out))
'''


def _run_in(env, code):
    environ = env.process_environ()
    environ["PYTHONPATH"] = os.pathsep.join([str(envs.ROOT), str(PACKAGE)])
    environ.pop(errors.BASE_URL_VARIABLE, None)
    return subprocess.run([str(env.interpreter), "-c", code], capture_output=True, text=True, env=environ,
                          cwd=envs.ROOT, timeout=600)


@pytest.mark.parametrize("env", DOCTOR_ENVS, ids=[e.name for e in DOCTOR_ENVS])
def test_wrong_arguments_get_a_clear_error(env):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    result = _run_in(env, ARGUMENTS)
    lines = [line for line in result.stdout.splitlines() if line.startswith("REPORT ")]
    assert result.returncode == 0 and lines, result.stderr[-3000:]
    out = json.loads(lines[-1][len("REPORT "):])
    for name, argument in (("model as strategy", "strategy"), ("None everywhere", "strategy"),
                           ("a string as strategy", "strategy"), ("strategy as model", "model"),
                           ("optimizer as model", "model"), ("number as model", "model"),
                           ("model as optimizer", "optimizer"), ("TF 1 strategy", "strategy")):
        assert out[name]["raised"] == "TypeError" and f"tfdist.doctor: {argument} " in out[name]["message"], (name, out[name])
    assert "TF 1 strategy" in out["TF 1 strategy"]["message"]
    assert "a Keras model (Functional)" in out["model as strategy"]["message"]
    assert out["bad raise_on"]["raised"] == "ValueError" and "raise_on" in out["bad raise_on"]["message"]
    assert out["inside tf.function"]["raised"] == "RuntimeError" and "eagerly" in out["inside tf.function"]["message"]
    plain = out["model outside the scope"]["returned"]
    assert [(f["id"], f["severity"]) for f in plain] == [("TFD002", "error")], plain
    assert "model variables that are plain, not distributed by this MirroredStrategy (2 of 2)" in plain[0]["message"]
    assert out["model outside the scope"]["printed"] == (
        f"TFD002 error: {plain[0]['message']} ({plain[0]['url']})")
    raised = out["raise_on error"]
    assert raised["raised"] == "DoctorError" and raised["findings"] == plain
    assert out["model outside the scope"]["printed"] in raised["message"]
    assert out["correct"] == {"returned": [], "printed": "tfdist.doctor: no findings"}
    foreign = out["another strategy's model"]["returned"]
    assert [(f["id"], f["severity"]) for f in foreign] == [("TFD007", "error")], foreign
    assert "of another MirroredStrategy object, not of this MirroredStrategy (2)" in foreign[0]["message"]
    single = out["one replica"]["returned"]
    assert [(f["id"], f["severity"]) for f in single] == [("verification", "warning")], single
    assert single[0]["url"].endswith("/verification/") and "single replica" in single[0]["message"]
    assert out["default strategy, plain model"]["returned"] == []
    mirrored = out["default strategy, mirrored model"]["returned"]
    assert [(f["id"], f["severity"]) for f in mirrored] == [("TFD007", "error")], mirrored
    assert "not of the default strategy (none)" in mirrored[0]["message"]
    pins = env.pins()
    assert out["keras3"] == (pins.get("keras", "").startswith("3.") and not env.environ.get("TF_USE_LEGACY_KERAS"))
    if out["keras3"]:
        unbuilt = out["not built, keras 3"]["returned"]
        assert [(f["id"], f["severity"]) for f in unbuilt] == [("TFD001", "warning")], unbuilt
        assert "optimizer.build(model.trainable_variables)" in unbuilt[0]["message"]
        assert out["not built, raise_on error"]["returned"] == unbuilt
        assert out["not built, raise_on warning"]["raised"] == "DoctorError"
        outside = out["optimizer constructed outside, keras 3"]["returned"]
        assert [(f["id"], f["severity"]) for f in outside] == [("TFD001", "error"), ("TFD001", "warning")], outside
        assert "the default strategy" in outside[0]["message"]


@pytest.mark.parametrize("env", TF1_ENVS, ids=[e.name for e in TF1_ENVS])
def test_tensorflow_1_is_refused_clearly(env):
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    code = ("import tfdist\ntry:\n    tfdist.doctor(None)\nexcept RuntimeError as error:\n"
            "    print('REFUSED ' + str(error))\n")
    result = _run_in(env, code)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "REFUSED tfdist.doctor needs TensorFlow 2.4 or later" in result.stdout, result.stdout


def test_importing_tfdist_imports_no_tensorflow():
    code = "import sys, tfdist\nprint(callable(tfdist.doctor), 'tensorflow' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(PACKAGE))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.stdout.split() == ["True", "False"], result.stderr
