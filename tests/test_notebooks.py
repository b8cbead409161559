"""Each entry's generated notebook runs top to bottom on 4 replicas in the docs environment,
failing exactly in the cells whose snippets are declared to fail there."""
import re

import nbclient
import pytest

from tfdist_kb import envs, notebooks, registry, runner

ENTRIES = [e for e in registry.load().values() if e.status == "published" and e.snippets]


def test_docs_environment_matches_default_environment():
    import keras
    import tensorflow as tf

    pins = envs.default().pins()
    assert (tf.__version__, keras.__version__) == (pins["tensorflow"], pins["keras"])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_notebook_runs(entry, tmp_path):
    nb = notebooks.build(entry)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    setup = "".join(o.get("text", "") for o in nb.cells[2].outputs).strip()
    assert re.fullmatch(r"\d+ physical GPUs|1 physical GPU split into 4 logical GPUs|4 logical CPU devices", setup), setup
    default = envs.default().name
    checked = 0
    for cell in nb.cells:
        snippet = cell.metadata.get("tfdist", {}).get("snippet")
        if not snippet:
            continue
        declared = runner.expectations(registry.ROOT / "snippets" / snippet)[default]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if declared.kind == "raises":
            assert errors and errors[0].ename == declared.exception, f"{snippet}: expected {declared.describe()}, got {errors}"
        else:
            assert not errors, f"{snippet}: {errors[0].ename}: {errors[0].evalue}"
        checked += 1
    assert checked, f"{entry.id}: the notebook has no snippet cells"
