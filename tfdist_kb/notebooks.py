"""Generate one Jupyter notebook per entry from its snippet files (never hand-copied).

Cell 1 provides 4 replicas (the code of tfdist_kb/replicas.py, for readers without 4 GPUs);
then one cell per snippet: the same `example` section the page includes. Cells of snippets that
are expected to fail in the default environment carry the `raises-exception` tag, so the
notebook runs to the end and shows the error where the page says it happens.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from . import envs, registry, runner

SECTION = re.compile(r"^# --8<-- \[start:example\]\n(.*?)^# --8<-- \[end:example\]", re.DOTALL | re.MULTILINE)
REPLICAS_SOURCE = Path(__file__).with_name("replicas.py")


def example(snippet: Path) -> str:
    found = SECTION.search(snippet.read_text())
    if not found:
        raise ValueError(f"{snippet}: no '# --8<-- [start:example]' ... '[end:example]' section")
    return found.group(1).rstrip("\n")


def build(entry: registry.Entry) -> nbformat.NotebookNode:
    default = envs.default()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [
        nbformat.v4.new_markdown_cell(
            f"# {entry.id}: {entry.title}\n\nGenerated from `snippets/{entry.id}/`; the page explains each "
            f"cell. Expected outcomes are for {default.about} ({default.name})."),
        nbformat.v4.new_markdown_cell(
            "Run this first on a machine with fewer than 4 GPUs: it makes 4 devices visible so that "
            "`tf.distribute.MirroredStrategy()` has 4 replicas. Restart the kernel before running it again."),
        nbformat.v4.new_code_cell(REPLICAS_SOURCE.read_text().split('"""', 2)[2].strip() + "\n\nprint(provide_replicas())"),
    ]
    for path in entry.snippets:
        expectation = runner.expectations(path)[default.name]
        cells.append(nbformat.v4.new_markdown_cell(f"## `{path.name}`\n\nExpected on {default.name}: {expectation.describe()}."))
        if expectation.kind in ("not-applicable", "hangs"):
            continue
        cell = nbformat.v4.new_code_cell(example(path))
        cell.metadata["tfdist"] = {"snippet": f"{entry.id}/{path.name}"}
        if expectation.kind == "raises":
            cell.metadata["tags"] = ["raises-exception"]
        cells.append(cell)
    nb.cells = cells
    return nb


def write_all(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for entry in registry.load().values():
        if entry.status != "published" or not entry.snippets:
            continue
        target = out_dir / f"{entry.id}.ipynb"
        nbformat.write(build(entry), str(target))
        written.append(target)
    return written
