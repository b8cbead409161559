"""`tfdist.doctor` in every TensorFlow environment, on the knowledge base's own snippets.

The runner's child (tfdist_kb.proof.child) has the doctor inspect what each snippet left, after the
snippet and in the same process: its `strategy`, `optimizer` and each model its tfdist block names
(`doctor = ["model", "loaded"]`; `model` where it names none), twice. So the findings judged here
come from the very run the session `matrix` fixture compares with the evidence: no snippet runs
again for them. A silent failure (a snippet declared `prints` in an environment) must get its own
entry; a passing snippet no finding at all; the findings of one snippet are the same in a second
run. Wrong arguments get a TypeError or ValueError naming the argument; TensorFlow 1.x gets a
clear refusal.
"""
import json
import os
import re
import subprocess
import sys

import pytest

from tfdist_kb.proof import envs, expect, forkpool, runner
from tfdist_kb.site import errors
from tfdist_kb.commands import pytest_plugin
from tfdist.doctor import CHECKS

pytestmark = pytest.mark.matrix

PACKAGE = envs.ROOT / "tfdist" / "src"
# Passing runs that are not correct distributed code, with the finding the doctor must make there
# instead of none: on TF 2.4 this snippet trains a model built outside the scope with an ordinary,
# non-distributed step (it "passes"; TFD003 shows it), so its weights and slots are plain variables.
NOT_FIXES = {("TFD003/optimizer_in_scope_model_outside.py", "tf2.4"): ["TFD001", "TFD002"]}
# Silent failures of an entry the doctor has a check for, which no check can see from the objects it
# is given, with why (docs/doctor.md says the same): the rule "its own entry is named" does not apply.
OUT_OF_SIGHT = {"TFD015/call_for_each_replica_clones_tf_function.py":
                "a tf.function traced once per replica, not a variable or a model the doctor is given"}


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


def _short(path):
    return f"{path.parent.name}/{path.name}"


def _key(path, env):
    return (runner.Job(path, env, expect.Expectation("passes")).rel, env.name)


def _findings(record):
    doctor = (record or {}).get("doctor") or {}
    return [f for call in doctor.values() for f in call.get("findings") or []]


def _ids(record):
    return sorted({f["id"] for f in _findings(record)})


def judge(path, env_name, expectation, record):
    """Everything wrong with the doctor's findings in one run's record (empty: as they should be)."""
    rel = f"{_short(path)} on {env_name}"
    declared = expect.doctor_models(path)
    doctor = record.get("doctor")
    if doctor is None:  # no module-level strategy, or made inside a function: nothing to inspect
        if record.get("outcome") == "passed" and declared != ["model"]:
            return [f"{rel}: its tfdist block names {declared} for the doctor, but it leaves no module-level strategy"]
        return []
    problems = []
    if list(doctor) != declared:
        problems.append(f"{rel}: the doctor inspected {list(doctor)}, the tfdist block declares {declared}")
    for name, call in doctor.items():
        if call.get("error") == "missing":
            if record.get("outcome") == "passed":  # a run that raised may stop before it made the model
                problems.append(f"{rel}: {call['message']}")
        elif "error" in call:
            problems.append(f"{rel}: the doctor failed on {name!r}: {call['error']}: {call['message']}\n"
                            f"{call.get('traceback', '')}")
        else:
            if not call["same_when_called_again"]:
                problems.append(f"{rel}: {name}: a second call in the same process found otherwise")
            if call["printed"].count("\n") + 1 != max(1, len(call["findings"])):
                problems.append(f"{rel}: {name}: printed {call['printed']!r}, not one line per finding")
            for finding in call["findings"]:
                if not (finding["severity"] in ("error", "warning") and finding["message"]
                        and (finding["url"].endswith(f"e/{finding['id']}/") or finding["id"] == "verification")):
                    problems.append(f"{rel}: {name}: a malformed finding {finding}")
    found, short = _ids(record), _short(path)
    if expectation.kind == "prints" and path.parent.name in set(CHECKS.values()) and short not in OUT_OF_SIGHT:
        # a silent failure the doctor has a check for: its own entry is named
        if path.parent.name not in found:
            problems.append(f"{rel}: a silent failure of {path.parent.name}, found {found}")
    elif expectation.kind == "prints":
        # a silent failure no check can see from the objects (a loss scaled by the per-replica batch,
        # an accumulator outside the model, a dataset's split): nothing is claimed but known entries
        if not set(found) <= set(CHECKS.values()):
            problems.append(f"{rel}: {_findings(record)}")
    elif expectation.kind == "passes":
        wanted = NOT_FIXES.get((short, env_name), [])
        if found != wanted:
            what = "a false alarm on a passing snippet" if not wanted else f"expected {wanted}"
            problems.append(f"{rel}: {what}: {_findings(record)}")
    return problems


@pytest.fixture(scope="module")
def doctored(matrix):
    """The session's runs, and (for the record of a test run, -s) the doctor's findings on them."""
    lines = ["tfdist.doctor on the snippets: snippet | environment | declared | findings"]
    for path, env, expectation in CASES:
        record = matrix.get(_key(path, env))
        if record is None:
            continue
        found = "; ".join(f"{name}: {f['id']} {f['severity']}" for name, call in (
            (record.get("doctor") or {}).items() if isinstance(record, dict) else ())
            for f in call.get("findings") or []) or "-"
        if not isinstance(record, dict):
            found = "RUN FAILED"
        lines.append(f"{_short(path)} | {env.name} | {expectation.kind} | {found}")
    print("\n".join(lines))
    return matrix


@pytest.mark.parametrize("case", CASES, ids=[f"{_short(p)}@{e.name}" for p, e, _ in CASES])
def test_doctor_on_snippet(case, doctored):
    path, env, expectation = case
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    record = doctored[_key(path, env)]
    if isinstance(record, runner.RunnerError):
        pytest.fail(f"the run itself failed (tests/test_snippets.py says more): {record}")
    problems = judge(path, env.name, expectation, record)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("env", DOCTOR_ENVS, ids=[e.name for e in DOCTOR_ENVS])
def test_findings_are_stable_across_runs(env, doctored):
    """One snippet per environment that got findings runs once more (as the session ran it): the
    same findings. A silent failure first; else a snippet that raised, but not one whose replicas
    disagree: a step stopped by an error leaves its replicas wherever thread timing left them."""
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    with_findings = [(p, e, x) for p, e, x in CASES if e is env and isinstance(doctored[_key(p, e)], dict)
                     and _findings(doctored[_key(p, e)])]
    if not with_findings:
        pytest.fail(f"no snippet got a finding on {env.name}: nothing to compare")
    with_findings.sort(key=lambda c: (c[2].kind != "prints", "TFD003" in _ids(doctored[_key(c[0], env)]), str(c[0])))
    path, _, expectation = with_findings[0]
    first = doctored[_key(path, env)]
    try:
        second = runner._execute(runner.Job(path, env, expectation), runner.TIME_LIMIT,
                                 mode=os.environ.get("TFDIST_MODE") or "fork")
    finally:
        forkpool.stop_all()
    assert not runner.judge(runner.Job(path, env, expectation), second)
    assert _stable(first["doctor"]) == _stable(second["doctor"]), f"{_short(path)} on {env.name}: the two runs differ"
    print(f"{_short(path)} on {env.name}, run twice:", *(_findings(r) for r in (first, second)), sep="\n  ")


def _stable(calls):
    """The findings without the size of the largest difference between replicas and the variable it
    is in: where replicas update a plain slot concurrently (built outside the scope), both depend on
    thread timing; which variables differ, and everything else, does not."""
    largest = re.compile(r"the largest difference is \S+, in .+?: an update")
    return {name: [dict(f, message=largest.sub("the largest difference is N, in V: an update", f["message"]))
                   for f in call.get("findings") or []] for name, call in calls.items()}


# ---------------------------------------------------------------- the declaration

DECLARED = '''# /// tfdist
# doctor = {names}
# [expect]
# default = "passes"
# ///
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
    optimizer = tf.keras.optimizers.SGD(0.1)
    if hasattr(optimizer, "build"):
        optimizer.build(model.trainable_variables)
ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
print("replicas:", sorted(int(t) for t in strategy.experimental_local_results(ids)))
'''


def test_a_declared_model_the_snippet_does_not_leave_is_reported(tmp_path):
    """Mutation: a snippet that names `revived` for the doctor but leaves none. The child says so
    (and still inspects `model`), the judgement fails the run, and the snippet's own outcome and
    output are untouched by the doctor."""
    env = envs.select("default")[0]
    if not envs.is_ready(env):
        pytest.skip(f"environment {env.name} is not built")
    snippet = tmp_path / "TFD999" / "declares_a_model_it_lacks.py"
    snippet.parent.mkdir()
    snippet.write_text(DECLARED.format(names='["model", "revived"]'))
    assert expect.doctor_models(snippet) == ["model", "revived"]
    expectation = runner.expectations(snippet)[env.name]
    job = runner.Job(snippet, env, expectation)
    try:
        record = runner._execute(job, runner.TIME_LIMIT, mode=os.environ.get("TFDIST_MODE") or "fork")
    finally:
        forkpool.stop_all()
    assert runner.judge(job, record) == [] and record["stdout"] == "replicas: [0, 1, 2, 3]", record
    assert record["doctor"]["model"]["findings"] == [], record["doctor"]
    assert record["doctor"]["revived"]["error"] == "missing"
    problems = judge(snippet, env.name, expectation, record)
    assert problems == [f"TFD999/declares_a_model_it_lacks.py on {env.name}: the snippet's tfdist block names "
                        f"'revived' for the doctor, but the snippet left no module-level 'revived'"], problems
    raised = dict(record, outcome="raised")  # a run that raised before it made the model: not a failure
    assert judge(snippet, env.name, expect.Expectation("passes"), raised) == []


@pytest.mark.parametrize("names, problem", [
    ('"model"', "'doctor' takes a list of the module-level names"),
    ("[]", "'doctor' takes a list of the module-level names"),
    ('["model", "model"]', "'doctor' takes a list of the module-level names"),
    ('["model", "2nd"]', "'doctor' takes a list of the module-level names"),
    ('["model", "class"]', "'doctor' takes a list of the module-level names"),
    ('[3]', "'doctor' takes a list of the module-level names"),
    ('[\n#   "model",\n# ]', "write 'doctor' on one line"),
])
def test_a_bad_doctor_declaration_is_an_expect_error(tmp_path, names, problem):
    snippet = tmp_path / "bad.py"
    snippet.write_text(DECLARED.format(names=names))
    with pytest.raises(expect.ExpectError) as raised:
        expect.doctor_models(snippet)
    message = str(raised.value)
    assert problem in message and "\n" not in message, message
    with pytest.raises(expect.ExpectError):
        runner.expectations(snippet)  # the matrix fixture leaves it out; its own test reports it


def test_the_undeclared_default_is_model(tmp_path):
    snippet = tmp_path / "plain.py"
    snippet.write_text(DECLARED.replace("# doctor = {names}\n", ""))
    assert expect.doctor_models(snippet) == ["model"]


# ---------------------------------------------------------------- arguments

ARGUMENTS = r'''
import json, sys
from tfdist_kb.proof.replicas import provide_replicas
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
