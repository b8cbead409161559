"""The test budget (`tfdist bench --budget`, tfdist_kb.commands.budget) and what the pytest plugin writes for
it: figures read from a small .cache/test-times.json and run records in tmp_path, never a timed test."""
import json
import os

from tfdist_kb.commands import budget, cli, pytest_plugin

TIMES = {
    "measured": "2026-12-01T10:00:00+00:00", "commit": "0123456789abcdef0123", "whole_suite": True, "envs": "all",
    "snippets": 80, "wall_seconds": 130.0, "executed_runs": {"fork": 12, "fresh": 10}, "notebook_kernels": 2,
    "files": {f"tests/test_f{i}.py": {"seconds": float(i), "scaling_seconds": 0.0} for i in range(1, 10)}
    | {"tests/test_snippets.py": {"seconds": 60.0, "scaling_seconds": 55.0}},
}


def _said(function, *args):
    lines = []
    result = function(*args, say=lines.append)
    return result, "\n".join(lines)


def test_the_last_test_run_by_file_with_when_and_which_commit(tmp_path):
    path = tmp_path / ".cache" / "test-times.json"
    path.parent.mkdir()
    path.write_text(json.dumps(TIMES))
    last, said = _said(budget.last_test_run, path)
    assert "measured 2026-12-01T10:00:00+00:00 on commit 0123456789ab" in said
    assert "executed 12 forked and 10 fresh snippet runs, 2 notebook kernel(s)" in said
    lines = said.splitlines()
    rows = [line for line in lines if line.rstrip().endswith(".py")]
    assert len(rows) == budget.TOP and rows[0].split() == ["60.0", "57.1%", "55.0", "tests/test_snippets.py"]
    assert rows[1].split()[:2] == ["9.0", "8.6%"] and "tests/test_f9.py" in rows[1]
    assert lines[-1].split() == ["3.0", "2.9%", "0.0", "2", "other", "file(s)"]  # test_f1 and test_f2
    assert last["total"] == 105.0


def test_the_projection_states_its_model(tmp_path):
    files = {name: (v["seconds"], v["scaling_seconds"]) for name, v in TIMES["files"].items()}
    projected, said = _said(budget.projection, files)
    assert projected == {1: 105.0, 2: 160.0, 4: 270.0}
    assert "105 s now, 160 s at 2x the snippets, 270 s at 4x (50 s fixed + 55 s scaling)" in said
    assert said.splitlines()[-1] == budget.MODEL


def test_no_measurement_yet_or_an_unreadable_one_is_said(tmp_path):
    assert _said(budget.last_test_run, tmp_path / "test-times.json") == (
        None, f"last make test: none measured yet ({tmp_path / 'test-times.json'} is written at the end of a run "
              f"of the whole suite: make test)")
    (tmp_path / "test-times.json").write_text('{"files": 3}')
    last, said = _said(budget.last_test_run, tmp_path / "test-times.json")
    assert last is None and "is not readable (AttributeError)" in said


def test_fork_records_of_current_snippets_newest_first(tmp_path):
    folder = tmp_path / "tf2.15"
    folder.mkdir()
    record = {"snippet": "snippets/TFD001/a.py", "env": "tf2.15", "sha256": "new", "mode": "fork",
              "outcome": "passed", "seconds": 3.0}
    for name, changes, stamp in (("old.json", {"seconds": 9.0}, 1), ("new.json", {}, 2),
                                 ("stale.json", {"sha256": "old"}, 3), ("fresh.json", {"mode": "fresh"}, 4)):
        (folder / name).write_text(json.dumps(record | changes))
        os.utime(folder / name, ns=(stamp * 10**9, stamp * 10**9))
    (folder / "broken.json").write_text("{")
    found = budget.fork_records(tmp_path, {"snippets/TFD001/a.py": "new"})
    assert found == {("snippets/TFD001/a.py", "tf2.15"): record}
    lines = []
    cluster = record | {"snippet": "snippets/TFD001/b.py", "mode": None, "seconds": 8.0, "tasks": [{"task": "worker:0"}]}
    forked_cluster = cluster | {"mode": "fork", "seconds": 6.0}
    budget.per_environment({("snippets/TFD001/a.py", "tf2.15"): record | {"mode": None, "seconds": 5.0},
                            ("snippets/TFD001/b.py", "tf2.15"): cluster},
                           found | {("snippets/TFD001/b.py", "tf2.15"): forked_cluster}, lines.append)
    row = next(line for line in lines if line.startswith("tf2.15"))
    # single fresh, single fork, cluster fresh, cluster fork: a forked cluster run is not a single fork
    assert row.split() == ["tf2.15", "1", "5.0", "5.00", "1", "3.0", "3.00", "1", "8.0", "8.00", "1", "6.0", "6.00"]
    assert lines[-1] == ("a cluster run against a single-process run (mean seconds per run): "
                         "tf2.15 fresh 1.6x, tf2.15 fork 2.0x")


def test_executed_runs_are_the_records_written_since_the_start(tmp_path):
    folder = tmp_path / "tf2.15"
    folder.mkdir()
    for name, mode, stamp in (("a.json", "fork", 5), ("b.json", "fork", 6), ("c.json", "fresh", 7),
                              ("d.json", "fork", 1)):
        (folder / name).write_text(json.dumps({"mode": mode}))
        os.utime(folder / name, ns=(stamp * 10**9, stamp * 10**9))
    assert pytest_plugin.executed_runs(5 * 10**9, tmp_path) == {"fork": 2, "fresh": 1}


def test_bench_budget_prints_alone(capsys, monkeypatch, tmp_path):
    path = tmp_path / "test-times.json"
    path.write_text(json.dumps(TIMES))
    monkeypatch.setattr(budget, "TIMES", path)
    assert cli.main(["bench", "--budget"]) == 0
    out = capsys.readouterr().out
    assert "snippet runs per environment" in out and "last make test: measured 2026-12-01" in out
    assert "projected make test: 105 s now" in out and "lighthouse" not in out and "site:" not in out
