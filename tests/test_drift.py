"""`make drift`'s judgement, without TensorFlow: a run on the newest releases is compared with the
committed run of the environment it mirrors. Changed outcomes, broken expectations and runs that did
not complete are differences (exit 1); new version numbers alone are not (exit 0); an environment
that does not resolve is one line (exit 2). The runs are committed records with one field changed."""
import json
import re

import pytest

from tfdist_kb.commands import cli, drift
from tfdist_kb.proof import envs, evidence, runner

SNIPPET = "snippets/TFD001/build_optimizer_outside_scope.py"  # raises RuntimeError in tf2.21-keras3


@pytest.fixture
def case():
    """A job of the release channel's Keras 3 environment and the committed run it is compared with."""
    env = drift.environments("release")[0]
    path = runner.ROOT / SNIPPET
    job = runner.Job(path, env, runner.expectations(path)[env.mirrors])
    committed = evidence.load()[(SNIPPET, env.mirrors)]
    assert committed["outcome"] == "raised" and job.expectation.kind == "raises"
    return job, committed


def summarise(job, result, committed, tmp_path):
    info = {"env": job.env.name, "mirrors": job.env.mirrors, "tensorflow_package": "tensorflow",
            "tensorflow": "2.99.0", "keras_package": "keras", "keras": "3.99.0", "python": "3.11.99"}
    code = drift.summarise("release", [info], [job], {(job.rel, job.env.name): result},
                           {(job.rel, job.env.mirrors): committed}, out=tmp_path)
    return code, json.loads((tmp_path / "report.json").read_text()), (tmp_path / "report.md").read_text()


def test_new_versions_alone_are_no_drift(case, tmp_path, capsys):
    job, committed = case
    committed = {k: v for k, v in committed.items() if k != "reduction"}  # recorded before the runner wrote it
    fresh = dict(committed, tensorflow="2.99.0", keras="3.99.0", python="3.11.99", reduction="NcclAllReduce")
    assert drift.compare(job, fresh, committed, "tensorflow 2.99.0, keras 3.99.0") == []
    code, report, md = summarise(job, fresh, committed, tmp_path)
    out = capsys.readouterr().out
    assert code == 0 and report["differences"] == []
    assert "no drift: 1 snippets, same outcomes" in out and "no drift" in md
    assert "tensorflow 2.99.0, keras 3.99.0, Python 3.11.99" in out.splitlines()[0]
    assert f"tensorflow {committed['tensorflow']}" in out.splitlines()[0]  # the committed versions beside them


def test_changed_headline_is_reported(case, tmp_path, capsys):
    job, committed = case
    fresh = dict(committed, tensorflow="2.99.0", headline="another problem")
    rows = drift.compare(job, fresh, committed, "tensorflow 2.99.0, keras 3.99.0")
    assert [(r.field, r.committed, r.now) for r in rows] == [("headline", committed["headline"], "another problem")]
    code, report, md = summarise(job, fresh, committed, tmp_path)
    out = capsys.readouterr().out
    assert code == 1 and [d["field"] for d in report["differences"]] == ["headline"]
    assert re.search(rf"{re.escape(SNIPPET)}\s+tf2.21-keras3\s+headline\s", out)
    assert "drift: 1 difference(s) in 1 of 1 runs" in out
    assert f"| `{SNIPPET}` | tf2.21-keras3 | headline |" in md and "another problem" in md


def test_expectation_break_is_reported(case, tmp_path):
    job, committed = case
    fresh = dict(committed, outcome="passed", exception=None, headline=None, message=None)
    rows = drift.compare(job, fresh, committed, "tensorflow 2.99.0, keras 3.99.0")
    fields = [r.field for r in rows]
    assert {"outcome", "exception", "headline", "expectation"} <= set(fields)
    broken = next(r for r in rows if r.field == "expectation")
    assert broken.committed == job.expectation.describe() and "but it passed" in broken.now
    assert summarise(job, fresh, committed, tmp_path)[0] == 1


def test_run_that_did_not_complete_is_reported(case, tmp_path):
    job, committed = case
    error = runner.RunnerError(f"{job.rel} on {job.env.name}: no result after the time limit of 240 s; "
                               f"last output:\nstdout: (nothing)")
    rows = drift.compare(job, error, committed, "tensorflow 2.99.0, keras 3.99.0")
    assert [(r.field, r.committed, r.now) for r in rows] == [
        ("run", "raised", "did not complete: no result after the time limit of 240 s; last output:")]
    code, report, _ = summarise(job, error, committed, tmp_path)
    assert code == 1 and report["differences"][0]["field"] == "run"


def test_snippet_without_current_evidence_is_reported_not_compared(case):
    job, committed = case
    rows = drift.compare(job, committed, None, "tensorflow 2.99.0, keras 3.99.0")
    assert [(r.field, r.committed, r.now) for r in rows] == [("evidence", "(no committed evidence)", "raised")]
    edited = dict(committed, sha256="0" * 64, headline="another problem")  # the snippet changed since
    rows = drift.compare(job, edited, committed, "tensorflow 2.99.0, keras 3.99.0")
    assert [(r.field, r.committed) for r in rows] == [("evidence", "(committed for another version of the snippet)")]


@pytest.mark.parametrize("channel", list(drift.CHANNELS))
def test_drift_requirements_exist_unpinned_beside_the_pinned_environments(channel):
    chosen = drift.environments(channel)
    assert [e.mirrors for e in chosen] == list(drift.MIRRORS.values())
    pinned = {e.name: e for e in envs.load()}
    for env in chosen:
        wanted = [line.strip() for line in env.source.read_text().splitlines()
                  if line.strip() and not line.startswith("#")]
        assert wanted and all(re.fullmatch(r"[A-Za-z0-9._-]+", w) for w in wanted), f"{env.source}: {wanted}"
        assert wanted[0] == ("tensorflow" if channel == "release" else "tf-nightly")
        mirror = pinned[env.mirrors]
        assert env.python == mirror.python and env.environ == mirror.environ
        # tf-keras is asked for exactly where the mirrored environment selects it
        assert any(w.startswith("tf-keras") for w in wanted) == bool(env.environ.get("TF_USE_LEGACY_KERAS"))
        # its lock and its environment are its own, never a pinned environment's
        assert env.lock.parent == drift.CACHE and env.path.name == f"drift-{env.name}"
        assert env.path not in {e.path for e in pinned.values()}


def test_environment_that_does_not_resolve_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    sources = tmp_path / "drift"
    sources.mkdir()
    (sources / "latest-keras3.in").write_text("tfdist-kb-no-such-package-zzz\n")
    monkeypatch.setattr(drift, "SOURCES", sources)
    monkeypatch.setattr(drift, "CACHE", tmp_path / "cache")
    monkeypatch.setenv("UV_OFFLINE", "1")  # no network needed to learn that it does not exist
    assert cli.main(["drift"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("tfdist: drift release: latest-keras3: latest-keras3.in does not resolve:")
    assert "tfdist-kb-no-such-package-zzz" in err
    report = json.loads((tmp_path / "cache" / "report.json").read_text())
    assert report["finding"] == err.removeprefix("tfdist: ")


def test_unknown_channel_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["drift", "--channel", "weekly"])
    assert stop.value.code == 2 and "invalid choice: 'weekly'" in capsys.readouterr().err
    with pytest.raises(envs.EnvError, match="unknown drift channel 'weekly'"):
        drift.environments("weekly")
