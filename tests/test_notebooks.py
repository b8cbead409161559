"""Each entry's generated notebook runs top to bottom on 4 replicas in the docs environment,
failing exactly in the cells whose snippets are declared to fail there (run by `make matrix`, recorded
in snippets/notebooks.json; run again here where its inputs changed, or with TFDIST_NOTEBOOKS=all); the notebooks the site
publishes (in each language) carry the recorded outputs of the evidence, link back to their entry,
and are downloadable as valid .ipynb files."""
import os
import re

import nbformat
import pytest

from tfdist_kb.proof import envs, evidence, runner
from tfdist_kb.site import i18n, macros, notebooks, reasons, registry
from tfdist_kb.commands import pytest_plugin

ENTRIES = [e for e in registry.load().values() if e.status == "published" and e.snippets]
# changed (default): a notebook runs here only if its inputs changed since its recorded run; all: every one
NOTEBOOKS = os.environ.get("TFDIST_NOTEBOOKS") or "changed"


def test_docs_environment_matches_default_environment():
    import keras
    import tensorflow as tf

    pins = envs.default().pins()
    assert (tf.__version__, keras.__version__) == (pins["tensorflow"], pins["keras"])


def _state(entry) -> str:
    """'as-recorded' where the notebook's inputs are those of its recorded run, else 'inputs-changed'."""
    try:
        recorded = notebooks.load_record().get(entry.id) or {}
        return "as-recorded" if recorded.get("inputs") == notebooks.inputs(entry) else "inputs-changed"
    except Exception:  # a broken record or declaration: the test says what
        return "inputs-changed"


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.id}-{_state(e)}" for e in ENTRIES])
def test_notebook_runs(entry, tmp_path, request):
    """The notebook runs top to bottom in one kernel (restarted where a cell says so), each snippet
    cell failing exactly where its snippet is declared to fail. Run here only where its inputs
    (tfdist_kb.site.notebooks.inputs) changed since the run snippets/notebooks.json records, or with
    TFDIST_NOTEBOOKS=all; otherwise that record is the run, checked against the inputs' hash."""
    assert NOTEBOOKS in ("changed", "all"), f"TFDIST_NOTEBOOKS: {NOTEBOOKS[:40]!r} is neither 'changed' nor 'all'"
    nb = notebooks.build(entry)
    kernels = len(notebooks.kernel_parts(nb))
    restarts = [c for c in nb.cells if c.metadata.get("tfdist", {}).get("restart_kernel")]
    first_code = next(i for i, c in enumerate(nb.cells) if i > 2 and c.cell_type == "code")
    assert kernels == 1 + len([c for c in restarts if nb.cells.index(c) > first_code])
    for cell in restarts:  # the reader is told, in their language, next to the cell
        above = nb.cells[nb.cells.index(cell) - 1].source
        assert "Restart the kernel before this cell" in above, above
    recorded = notebooks.load_record().get(entry.id)
    unchanged = bool(recorded) and recorded["inputs"] == notebooks.inputs(entry)
    rerecord = f"re-record it: `make matrix` (or `tfdist matrix --snippets {entry.id}`)"
    if unchanged and NOTEBOOKS != "all":
        pytest_plugin.tally(request.config, "notebooks not re-run (inputs as recorded in snippets/notebooks.json)",
                            entry.id)
        assert recorded["outcome"] == "passed", f"{entry.id}: its recorded run: {recorded['outcome']}"
        assert recorded["kernels"] == kernels, f"{entry.id}: recorded in {recorded['kernels']} kernel(s), now {kernels}"
        return
    pytest_plugin.tally(request.config, "notebooks run in a kernel", entry.id)
    ran = notebooks.run_as_a_reader(nb, tmp_path)
    request.config.stash[pytest_plugin.NOTEBOOK_KERNELS] = request.config.stash.get(
        pytest_plugin.NOTEBOOK_KERNELS, 0) + ran
    assert ran == kernels
    found = notebooks.problems(nb)
    assert not found, found
    assert unchanged, (f"{entry.id}: the notebook ran as declared, but its inputs changed since the run "
                       + (f"recorded on {recorded['date']}" if recorded else "snippets/notebooks.json records (none)")
                       + f": {rerecord}")


def test_the_recorded_run_is_keyed_on_the_notebooks_inputs(tmp_path, monkeypatch):
    """The hash the record is checked against changes with the docs environment's lock, not with the
    address a mirror publishes at."""
    entry = ENTRIES[0]
    digest = notebooks.inputs(entry)
    monkeypatch.setenv("TFDIST_BASE_URL", "https://mirror.example/kb/")
    assert notebooks.inputs(entry) == digest
    lock = tmp_path / "dev.txt"
    lock.write_bytes(notebooks.DOCS_LOCK.read_bytes() + b"extra==1.0\n")
    with monkeypatch.context() as patched:
        patched.setattr(notebooks, "DOCS_LOCK", lock)
        assert notebooks.inputs(entry) != digest
    assert notebooks.inputs(entry) == digest


def test_a_declared_restart_is_in_the_notebook(tmp_path, monkeypatch):
    """`restart-kernel = "why"` in a snippet's header: its markdown cell tells the reader to restart
    and why, in each language, and its code cell is marked so that the test above restarts there;
    an empty reason is refused."""
    from tfdist_kb.proof import expect

    entry = next(e for e in ENTRIES if any(expect.restart_kernel(p) for p in e.snippets))
    for lang in LANGUAGES:
        nb = notebooks.build(entry, lang)
        code = {c.metadata.get("tfdist", {}).get("snippet"): c for c in nb.cells if c.cell_type == "code"}
        restarts = 0
        for path in entry.snippets:
            cell = code.get(f"{entry.id}/{path.name}")
            if cell is None:  # not applicable in the default environment: a markdown cell only, nothing to run
                assert runner.expectations(path)[envs.default().name].kind == "not-applicable", path.name
                continue
            above = nb.cells[nb.cells.index(cell) - 1].source
            why = expect.restart_kernel(path)
            restarts += bool(why)
            assert bool(cell.metadata["tfdist"].get("restart_kernel")) == bool(why)
            with i18n_language(lang):
                told = i18n.t("nb_restart", reason="\0").split("\0")[0]
                assert (i18n.t("nb_restart", reason=notebooks.restart_reason(path)) in above) if why else (told not in above)
        assert restarts, f"{entry.id}: no code cell of a snippet that declares restart-kernel"
    bad = tmp_path / "x.py"
    bad.write_text('# /// tfdist\n# restart-kernel = " "\n# [expect]\n# default = "passes"\n# ///\n')
    with pytest.raises(expect.ExpectError, match="'restart-kernel' takes the reason"):
        expect.restart_kernel(bad)


# ---- what the site publishes: recorded outputs, the link back, the raw file ------------------------

LANGUAGES = i18n.LANGUAGES


def _record(snippet: str) -> dict | None:
    return evidence.load().get((f"snippets/{snippet}", envs.default().name))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_outputs_are_the_recorded_runs(entry, lang):
    """Each snippet cell shows what the default environment's run in snippets/evidence.json printed
    and raised, nothing else; where a snippet has no output the markdown cell above it says so."""
    nb = notebooks.build(entry, lang)
    nbformat.validate(nb)
    setup = nb.cells[2]
    # the setup cell shows the devices of a single-process run; a cluster's tasks never ran it, so an
    # entry whose every snippet is a cluster shows no setup output
    devices = {r["devices"] for r in map(_record, (f"{entry.id}/{p.name}" for p in entry.snippets))
               if r and r.get("devices") and not r.get("tasks")}
    shown_devices = "".join(o.text for o in setup.outputs).strip()
    assert shown_devices in devices if devices else shown_devices == ""
    shown = set()
    for i, cell in enumerate(nb.cells):
        snippet = cell.metadata.get("tfdist", {}).get("snippet")
        if not snippet:
            continue
        shown.add(snippet)
        record = _record(snippet)
        assert cell.metadata["tfdist"]["outputs_from"] == envs.default().name
        stdout = "".join(o.text for o in cell.outputs if o.output_type == "stream")
        if record.get("tasks"):  # a local cluster: every task's recorded output under its name, as local_cluster prints
            assert [line[4:-4] for line in stdout.splitlines() if line.startswith("--- ")] == \
                [task["task"] for task in record["tasks"]], snippet
            for task in record["tasks"]:
                assert f"--- {task['task']} ---\n{task.get('stdout') or ''}".rstrip() in stdout, (snippet, task["task"])
        else:
            assert stdout.rstrip("\n") == (record.get("stdout") or "").rstrip("\n"), snippet
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if record["outcome"] == "raised":
            assert [(e.ename, e.evalue) for e in errors] == [(record["exception"], record.get("headline") or record["message"])]
        else:
            assert not errors, snippet
        if not cell.outputs:
            with i18n_language(lang):
                assert i18n.t("nb_printed_nothing") in nb.cells[i - 1].source, snippet
    default = envs.default().name
    for path in entry.snippets:  # a snippet without a cell: its markdown cell says why, from its record
        name = f"{entry.id}/{path.name}"
        if name not in shown:
            note = next(c.source for c in nb.cells if c.cell_type == "markdown" and f"`{path.name}`" in c.source)
            record = _record(name)
            with i18n_language(lang):
                reason = reasons.localized(record["reason"], entry.id, lang) if record["outcome"] == "not-applicable" else ""
                said = (i18n.t("nb_not_run", env=macros._env(default), reason=macros._pinned_words(reason, name))
                        if record["outcome"] == "not-applicable"
                        else i18n.t("nb_hangs", env=macros._env(default), seconds=record["seconds"]))
            assert said in note, note


def test_notebooks_are_deterministic(tmp_path):
    """The same entry gives the same bytes (cell ids included), and an unchanged notebook is not
    rewritten: mkdocs-jupyter's cache (keyed on the bytes) and mkdocs' rebuild then hit."""
    first = notebooks.write_all(tmp_path, "en")
    stamps = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in first}
    again = notebooks.write_all(tmp_path, "en")
    assert again == first and {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in again} == stamps
    assert notebooks.OUT.relative_to(envs.ROOT).parts[:1] == (".cache",)  # in the checkout, wherever it lives


class i18n_language:
    def __init__(self, lang):
        self.lang, self.before = lang, i18n.language()

    def __enter__(self):
        i18n.set_language(self.lang)

    def __exit__(self, *exc):
        i18n.set_language(self.before)


def _prefix(lang: str) -> str:
    return "" if lang == i18n.DEFAULT else f"{lang}/"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_raw_notebook_is_published_valid_and_downloadable(site, lang):
    """Each entry page links the rendered notebook and, as a download, the raw .ipynb; the raw
    file is on the site, valid nbformat, and is the notebook generated for that language."""
    for entry in ENTRIES:
        page = site / _prefix(lang) / "e" / entry.id / "index.html"
        html = page.read_text()
        links = re.findall(r'<a href="([^"]+\.ipynb)" download="([^"]+)"', html)
        assert links == [(f"../../notebooks/{entry.id}/{entry.id}.ipynb", f"{entry.id}.ipynb")], links
        raw = (page.parent / links[0][0]).resolve()
        assert raw == (site / _prefix(lang) / "notebooks" / entry.id / f"{entry.id}.ipynb").resolve() and raw.exists()
        nb = nbformat.read(str(raw), as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["tfdist"]["language"] == lang and nb.metadata["tfdist"]["entry"] == entry.id
        expected = notebooks.build(entry, lang, nb.metadata["tfdist"]["page"])
        assert nbformat.writes(nb) == nbformat.writes(expected)
        assert f'href="../../notebooks/{entry.id}/"' in html  # the rendered page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_notebook_links_back_to_its_entry(site, lang):
    """The first cell links to the entry's page: by absolute address in the .ipynb (read outside
    the site too), by a relative link that resolves to the page in the same language on the site."""
    for entry in ENTRIES:
        folder = site / _prefix(lang) / "notebooks" / entry.id
        nb = nbformat.read(str(folder / f"{entry.id}.ipynb"), as_version=4)
        address = nb.metadata["tfdist"]["page"]
        assert address.endswith(f"/{_prefix(lang)}e/{entry.id}/") and f"]({address})" in nb.cells[0].source
        rendered = (folder / "index.html").read_text()
        assert f'href="{address}"' not in rendered
        back = [h for h in re.findall(r'href="([^"]+)"', rendered) if h.rstrip("/").endswith(f"e/{entry.id}")]
        assert back and all((folder / h / "index.html").resolve() == (site / _prefix(lang) / "e" / entry.id /
                                                                     "index.html").resolve() for h in back), back
        assert "4 logical CPU devices" in rendered or "physical GPU" in rendered  # the recorded setup output
        assert 'src=""' not in rendered and "cdnjs" not in rendered and "mathjax" not in rendered.lower()
