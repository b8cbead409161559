"""Generate one Jupyter notebook per entry and language from its snippet files (never hand-copied).

Cell 1 links back to the entry's page and says where the outputs come from; cell 3 provides
4 replicas (the code of tfdist_kb/proof/replicas.py, for readers without 4 GPUs); then one cell per
snippet: the same `example` section the page includes. Cells of snippets that are expected to
fail in the default environment carry the `raises-exception` tag, so the notebook runs to the end
and shows the error where the page says it happens.

The outputs stored in each notebook are not produced here: they are the recorded runs of the
default environment in snippets/evidence.json (stdout, and the exception a snippet raised), the
same records the page's outcome boxes and tables show. Where no output exists (a snippet that
printed nothing, does not apply or hangs there, or has no current record) the markdown cell above
it says so. Everything is deterministic (cell ids included), so an unchanged entry gives the
same bytes and mkdocs-jupyter's cache (keyed on those bytes) hits.

A snippet that runs as a local cluster (`cluster = { worker = 4 }` in its header) cannot be one cell of
a kernel: its cell saves it with `%%writefile`, and the next cell runs it with `local_cluster` (the code of
tfdist/src/tfdist/cluster.py, added to the setup cell), one process per task; that cell shows each task's
recorded output under its name and raises the first failing task's exception under its class name.

A snippet that cannot share a kernel with the cells above it declares why (`restart-kernel` in its
header, tfdist_kb.proof.expect): its markdown cell starts by telling the reader to restart the kernel and
run the setup cell again, and its code cell carries `tfdist.restart_kernel`, where the notebook test
restarts the kernel too.

Each notebook also runs top to bottom as a reader would run it (`run_as_a_reader`: one kernel of
the docs environment, restarted where a cell says so), and every snippet cell must fail exactly
where its snippet is declared to fail in the default environment (`problems`). `tfdist matrix`
(make matrix) does this after recording the snippets and writes the outcome to
snippets/notebooks.json, keyed on the notebook's inputs (`inputs`): the sha256 of
  - the English notebook as `build` generates it, with the page address fixed to the entry's
    relative URL (a mirror's TFDIST_BASE_URL does not change it): its code cells, their tags and
    restart marks, and the recorded outputs it shows;
  - the bytes of each of the entry's snippet files (their headers declare which cells must raise what);
  - tfdist_kb/proof/envs/dev.txt, the lock of the docs environment whose kernel runs the notebook;
  - the default environment's pins (its lock file read as name -> version), whose declarations apply.
The other language's notebook has the same code cells, so it is not run separately. A notebook whose
inputs are unchanged since its recorded run is not run again by the tests (tests/test_notebooks.py,
TFDIST_NOTEBOOKS=all runs every one); `tfdist matrix` runs only the notebooks whose inputs changed
(every one with --no-cache).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import re
import tempfile
import time
from pathlib import Path

import nbformat

from ..proof import envs, expect, files, runner
from . import i18n, registry
from .i18n import t

SECTION = re.compile(r"^# --8<-- \[start:example\]\n(.*?)^# --8<-- \[end:example\]", re.DOTALL | re.MULTILINE)
REPLICAS_SOURCE = Path(__file__).resolve().parents[1] / "proof" / "replicas.py"
# An entry with snippets that run as a local cluster: the setup cell defines local_cluster from the
# tfdist package's own code (its `main`, the command line, left out).
CLUSTER_SOURCE = Path(__file__).resolve().parents[2] / "tfdist" / "src" / "tfdist" / "cluster.py"
# Where the site build writes the notebooks it publishes: one stable folder per language, so an
# unchanged notebook keeps its bytes and its modification time from one build to the next.
OUT = envs.ROOT / ".cache" / "notebooks"
RECORD = envs.ROOT / "snippets" / "notebooks.json"
DOCS_LOCK = Path(__file__).resolve().parents[1] / "proof" / "envs" / "dev.txt"
INPUTS = ("sha256 of the English notebook (page address fixed), the entry's snippet files, "
          "tfdist_kb/proof/envs/dev.txt and the default environment's pins (tfdist_kb/site/notebooks.py)")
DEVICES = re.compile(r"\d+ physical GPUs|1 physical GPU split into 4 logical GPUs|4 logical CPU devices")


def example(snippet: Path) -> str:
    found = SECTION.search(snippet.read_text())
    if not found:
        raise ValueError(f"{snippet}: no '# --8<-- [start:example]' ... '[end:example]' section")
    return found.group(1).rstrip("\n")


def entry_url(entry: registry.Entry, lang: str = i18n.DEFAULT, base_url: str | None = None) -> str:
    """The absolute address of the entry's page in `lang` (what a downloaded notebook links to)."""
    from . import errors

    base = (base_url or errors.base_url()).rstrip("/") + "/"
    return base + ("" if lang == i18n.DEFAULT else f"{lang}/") + entry.url


def _outputs(record: dict) -> list:
    """The recorded run as notebook outputs: what it printed, then the exception it raised (for a
    local cluster, each task's output under its name, as local_cluster prints it)."""
    outputs = []
    if record.get("tasks"):
        text = "\n".join(f"--- {task['task']} ---\n{task.get('stdout') or ''}".rstrip() for task in record["tasks"])
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text + "\n"))
    elif record.get("stdout"):
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=record["stdout"].rstrip("\n") + "\n"))
    if record["outcome"] == "raised":
        headline = record.get("headline") or record.get("message") or ""
        whole = (record.get("message") or headline).strip()
        outputs.append(nbformat.v4.new_output("error", ename=record["exception"], evalue=headline,
                                              traceback=f"{record['exception']}: {whole}".splitlines()))
    return outputs


def restart_reason(path: Path) -> str:
    """The restart-kernel reason a snippet declares, as its notebook shows it: marked like a
    not-applicable reason (every version-like token in it a release the lock files pin)."""
    from . import macros

    from . import reasons

    text = expect.restart_kernel(path)
    if i18n.language() != i18n.DEFAULT:  # its entry's Chinese text
        text = reasons.localized(text, reasons.entry_of(path.as_posix()))
    return macros._pinned_words(text.rstrip(".。"), f"the restart-kernel reason of {path.name}")


def _snippet_cells(entry: registry.Entry, path: Path, env: envs.Env, number: int) -> tuple[list, int]:
    """The markdown cell saying what the recorded run did, and the code cell with its outputs."""
    from . import macros  # the same record lookup (and staleness check) as the page's boxes

    name = f"{entry.id}/{path.name}"
    expectation = runner.expectations(path)[env.name]
    head = f"## `{path.name}`\n\n"
    restart = expect.restart_kernel(path)
    if restart:
        head += t("nb_restart", reason=restart_reason(path)) + "\n\n"
    try:
        record = macros._record(name, env.name, "notebook")
    except macros.StaleEvidence as error:
        record, note = None, t("nb_no_record", env=macros._env(env.name), error=error)
    if record is not None:
        if record["outcome"] == "not-applicable":
            from . import reasons

            reason = macros._pinned_words(reasons.localized(record["reason"], entry.id),
                                          f"the not-applicable reason of {name} on {env.name}")
            return [nbformat.v4.new_markdown_cell(head + t("nb_not_run", env=macros._env(env.name), reason=reason))], number
        if record["outcome"] == "timed-out":
            return [nbformat.v4.new_markdown_cell(head + t("nb_hangs", env=macros._env(env.name), seconds=record["seconds"]))], number
        how = ((t("ran_wrong") if expectation.kind == "prints" else t("passed")) if record["outcome"] == "passed"
               else t("raised", exception=record["exception"]))
        note = t("nb_recorded", env=macros._env(env.name), how=how)
        if not record.get("stdout") and record["outcome"] == "passed":
            note += " " + t("nb_printed_nothing")
    elif expectation.kind in ("not-applicable", "hangs"):
        return [nbformat.v4.new_markdown_cell(head + note)], number
    tasks = expect.cluster(path)
    cells = []
    if tasks:  # saved as a file, then run as one process per task by local_cluster (the setup cell)
        head += t("nb_cluster", n=len(tasks), file=path.name, tasks=", ".join(f"`{k}:{i}`" for k, i in tasks)) + "\n\n"
        cells.append(nbformat.v4.new_code_cell(f"%%writefile {path.name}\n" + example(path)))
        counts = {k: sum(1 for kind, _ in tasks if kind == k) for k in ("chief", "worker", "ps")}
        call = ", ".join(f"{k if k != 'worker' else 'workers'}={n}" for k, n in counts.items() if n)
        cell = nbformat.v4.new_code_cell(f'outputs = local_cluster("{path.name}", {call})')
    else:
        cell = nbformat.v4.new_code_cell(example(path))
    cell.metadata["tfdist"] = {"snippet": name, "outputs_from": env.name if record else None}
    if restart:
        cell.metadata["tfdist"]["restart_kernel"] = True
    if expectation.kind == "raises":
        cell.metadata["tags"] = ["raises-exception"]
    if record is not None:
        for saved in cells:  # the %%writefile cell: what Jupyter prints for it
            number += 1
            saved.execution_count = number
            saved.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"Writing {path.name}\n")]
        number += 1
        cell.execution_count = number
        cell.outputs = _outputs(record)
    return [nbformat.v4.new_markdown_cell(head + note), *cells, cell], number


def build(entry: registry.Entry, lang: str = i18n.DEFAULT, url: str | None = None) -> nbformat.NotebookNode:
    """The notebook of `entry` in `lang`, linking back to its page at `url` (absolute: the
    notebook is also read outside the site), with the recorded outputs of the default environment."""
    from ..proof import evidence
    from . import macros

    previous = i18n.language()
    i18n.set_language(lang)
    try:
        default = envs.default()
        url = url or entry_url(entry, lang)
        records = evidence.load()
        ran = [records.get((p.relative_to(envs.ROOT).as_posix(), default.name)) for p in entry.snippets]
        ran = [r for r in ran if r and r["outcome"] not in ("not-applicable", "timed-out")]
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nb.metadata["tfdist"] = {"entry": entry.id, "page": url, "language": lang, "outputs_from": default.name}
        intro = t("nb_intro", id=entry.id, title=macros._title(entry), url=url)
        if ran:
            intro += "\n\n" + t("nb_outputs", env=macros._env(default.name), label=macros._from(macros._label(ran[0])),
                                replicas=ran[0]["replicas"], devices=ran[0].get("devices") or "?",
                                date=max(r["date"] for r in ran))
        else:
            intro += "\n\n" + t("nb_no_outputs", env=macros._env(default.name))
        launcher = ""
        if any(expect.cluster(p) for p in entry.snippets):  # local_cluster, for the cluster snippets' cells
            launcher = "\n\n" + CLUSTER_SOURCE.read_text().split('"""', 2)[2].strip().split("\n\ndef main(")[0]
        setup = nbformat.v4.new_code_cell(REPLICAS_SOURCE.read_text().split('"""', 2)[2].strip() + launcher
                                          + "\n\nprint(provide_replicas())")
        number = 0
        single = [r for r in ran if not r.get("tasks")]  # a cluster's tasks never ran the setup cell's code
        if single and single[0].get("devices"):
            number = setup.execution_count = 1
            setup.outputs = [nbformat.v4.new_output("stream", name="stdout", text=single[0]["devices"] + "\n")]
        cells = [nbformat.v4.new_markdown_cell(intro), nbformat.v4.new_markdown_cell(t("nb_setup")), setup]
        for path in entry.snippets:
            more, number = _snippet_cells(entry, path, default, number)
            cells.extend(more)
        for i, cell in enumerate(cells):  # stable ids: the same entry gives the same bytes
            cell.id = f"{entry.id.lower()}-{i}"
        nb.cells = cells
        return nb
    finally:
        i18n.set_language(previous)


def write(nb: nbformat.NotebookNode, target: Path) -> Path:
    """Write `nb` to `target` unless it already holds exactly these bytes (its mtime then stays)."""
    nbformat.validate(nb)
    text = nbformat.writes(nb) + "\n"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        files.write_atomic(target, text)
    return target


def published() -> list[registry.Entry]:
    return [e for e in registry.load().values() if e.status == "published" and e.snippets]


def write_all(out_dir: Path, lang: str = i18n.DEFAULT, urls: dict[str, str] | None = None) -> list[Path]:
    """Each published entry's notebook in `lang` as out_dir/ID.ipynb; stale notebooks removed."""
    urls = urls or {}
    written = [write(build(e, lang, urls.get(e.id)), out_dir / f"{e.id}.ipynb") for e in published()]
    for old in set(out_dir.glob("*.ipynb")) - set(written):
        old.unlink()
    return written


# ---- running a notebook as a reader would, and the record of those runs -----------------------------

def inputs(entry: registry.Entry) -> str:
    """What determines the run of `entry`'s notebook (see the module's docstring), as a sha256."""
    digest = hashlib.sha256()
    default = envs.default()
    parts = [("notebook", nbformat.writes(build(entry, i18n.DEFAULT, entry.url)).encode())]
    parts += [(p.relative_to(envs.ROOT).as_posix(), p.read_bytes()) for p in entry.snippets]
    parts += [("lock of the docs environment", DOCS_LOCK.read_bytes()),  # a name, not a path: moving the file changes nothing
              (f"pins of {default.name}", json.dumps(default.pins(), sort_keys=True).encode())]
    for name, data in parts:
        digest.update(f"{name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def kernel_parts(nb: nbformat.NotebookNode) -> list[list]:
    """The cells after the setup cell, split where a cell is marked `restart_kernel`: a kernel per
    part (the markdown cell that tells the reader to restart goes with the cell it announces)."""
    parts, part = [], []
    for cell in nb.cells[3:]:
        if cell.metadata.get("tfdist", {}).get("restart_kernel") and part:
            parts.append(part)
            part = [parts[-1].pop()] if parts[-1] and parts[-1][-1].cell_type == "markdown" else []
        part.append(cell)
    parts.append(part)
    return parts


def run_as_a_reader(nb: nbformat.NotebookNode, folder: Path, log=None) -> int:
    """Run the notebook top to bottom as a reader following it would: in one kernel, except that
    where a cell is marked `restart_kernel` (its markdown cell tells the reader to) the kernel is
    restarted and the setup cell run again before it. Outputs are written into `nb`'s cells.
    Returns the number of kernels; ValueError if the setup cell did not provide 4 devices.
    `log`: an open file for the kernels' own output (TensorFlow's log lines), else inherited."""
    import nbclient

    setup = nb.cells[2]
    parts = kernel_parts(nb)
    for i, cells in enumerate(parts):
        kernel = nbformat.v4.new_notebook(metadata=nb.metadata, cells=[setup.copy() if i else setup] + cells)
        nbclient.NotebookClient(kernel, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(folder)}}).execute(
            **({"stdout": log, "stderr": log} if log else {}))
        printed = "".join(o.text for o in kernel.cells[0].outputs if o.get("name") == "stdout").strip()
        if not DEVICES.fullmatch(printed):
            raise ValueError(f"the setup cell printed {printed[:200]!r}, not 4 devices")
    return len(parts)


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """The snippet cells of a run notebook whose errors are not what their snippets declare for the
    default environment: a declared `raises` must raise one of its exceptions, anything else nothing."""
    default = envs.default().name
    found, checked = [], 0
    for cell in nb.cells:
        snippet = cell.metadata.get("tfdist", {}).get("snippet")
        if not snippet:
            continue
        checked += 1
        declared = runner.expectations(registry.ROOT / "snippets" / snippet)[default]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if declared.kind == "raises" and not (errors and errors[0].ename in declared.exceptions):
            got = f"{errors[0].ename}: {errors[0].evalue}"[:300] if errors else "no error"
            found.append(f"{snippet}: expected {declared.describe()}, got {got}")
        elif declared.kind != "raises" and errors:
            found.append(f"{snippet}: {errors[0].ename}: {errors[0].evalue}"[:300])
    entry = nb.metadata["tfdist"]["entry"]
    runnable = [p for p in registry.load()[entry].snippets
                if runner.expectations(p)[default].kind not in ("not-applicable", "hangs")]
    if not checked and runnable:  # none at all is right only where none runs in the default environment
        found.append(f"{entry}: the notebook has no snippet cells")
    return found


def run(entry: registry.Entry, folder: Path | None = None) -> dict:
    """Run `entry`'s notebook as a reader would; its record: inputs, outcome ('passed' or 'failed:
    why'), kernels, seconds, date."""
    digest = inputs(entry)
    nb = build(entry)
    started = time.monotonic()
    kernels = None
    with tempfile.TemporaryDirectory(prefix="tfdist-notebook-") as scratch:
        log = Path(scratch) / "kernel.log"
        try:
            with open(log, "w") as handle:
                kernels = run_as_a_reader(nb, Path(folder or scratch), handle)
            found = problems(nb)
        except Exception as error:  # a cell outside the declared ones failed, a kernel died, a timeout
            tail = log.read_text(errors="replace").strip()[-300:] if log.exists() else ""
            found = [f"{type(error).__name__}: {str(error).strip()[-300:]}" + (f" (kernel log: {tail})" if tail else "")]
    return {"inputs": digest, "outcome": "passed" if not found else "failed: " + "; ".join(found),
            "kernels": kernels, "seconds": round(time.monotonic() - started, 1),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat()}


def load_record(path: Path | None = None) -> dict[str, dict]:
    """The recorded notebook runs by entry ID ({} if none is recorded yet)."""
    path = path or RECORD
    if not path.exists():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["notebooks"])
    except (ValueError, KeyError, TypeError) as error:
        from ..proof.evidence import EvidenceError

        raise EvidenceError(f"{path.name}: not a readable notebook record ({type(error).__name__}); "
                         f"restore it from git or rewrite it with `make matrix`") from None


def record(chosen: list[registry.Entry] | None = None, again: bool = False, say=print) -> list[str]:
    """Run the notebooks of `chosen` (None: every published entry) whose inputs changed since their
    recorded run (`again`: all of them) and merge their records into snippets/notebooks.json; the
    records of entries no longer published are dropped. Returns the IDs whose run failed."""
    from ..proof import evidence

    every = {e.id: e for e in published()}
    todo = [e for e in (chosen if chosen is not None else every.values()) if e.id in every]
    before = load_record()
    failed = []
    results = {}
    for entry in todo:
        if not again and before.get(entry.id, {}).get("inputs") == inputs(entry) \
                and before[entry.id].get("outcome") == "passed":
            continue
        result = results[entry.id] = run(entry)
        say(f"[notebooks] {entry.id}: {result['outcome']} ({result['kernels']} kernel(s), {result['seconds']} s)")
        if result["outcome"] != "passed":
            failed.append(entry.id)
    with evidence.locked(RECORD):
        kept = {k: v for k, v in load_record().items() if k in every}
        kept.update(results)
        files.write_atomic(RECORD, json.dumps({"generated_by": "tfdist matrix (make matrix)", "inputs": INPUTS,
                                               "notebooks": dict(sorted(kept.items()))}, indent=1) + "\n")
    say(f"[notebooks] {len(results)} run, {len(todo) - len(results)} unchanged since their recorded run; "
        f"wrote {RECORD.relative_to(envs.ROOT)}")
    return failed
