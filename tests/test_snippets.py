"""One test per (snippet, environment): it ran on 4 replicas, did what it declares, and matches
the committed evidence (snippets/evidence.json) for the same file contents."""
import pytest

from tfdist_kb.proof import evidence, expect, runner


def test_snippet(job, matrix):
    if isinstance(job, expect.ExpectError):
        pytest.fail(str(job), pytrace=False)
    result = matrix[(job.rel, job.env.name)]
    if isinstance(result, runner.RunnerError):
        pytest.fail(str(result), pytrace=False)
    problems = runner.judge(job, result)
    committed = evidence.load().get((job.rel, job.env.name))
    if committed is None:
        problems.append("no committed evidence for this snippet and environment: run `make matrix`")
    elif committed["sha256"] != result["sha256"]:
        problems.append("committed evidence is stale (snippet changed since): run `make matrix`")
    else:
        problems += [f"differs from evidence: {d}" for d in evidence.differences(committed, result, job.expectation.exceptions)]
    if problems:
        detail = "\n".join(f"  - {p}" for p in problems)
        tail = (result.get("traceback") or result.get("stderr_tail") or "")[-1500:]
        pytest.fail(f"{job.rel} on {job.env.name} ({job.expectation.describe()}):\n{detail}\n{tail}", pytrace=False)


def test_evidence_has_no_orphans():
    """Every committed record belongs to a snippet that exists, for a known environment."""
    known = {e.name for e in runner.envs.load()}
    orphans = [k for k in evidence.load() if k[1] not in known or not (runner.ROOT / k[0]).exists()]
    assert not orphans, f"evidence for snippets or environments that no longer exist: {orphans} (run make matrix)"
