"""The page audit (tfdist_kb.site.pages) and the version macros (claim, version, bisection) catch what
they are meant to: each mutation of a real page must add a problem that names it, and each
unsupported statement must fail the macro. Mutations are made on copies; docs/ is never changed."""
import html
import io
import re
from collections import Counter

import markdown
import pytest
from pytest_codeblocks.main import extract_from_buffer

from tfdist_kb.proof import envs, evidence, expect, runner
from tfdist_kb.site import macros, pages, registry

DOCS = registry.DOCS


def _text(rendered: str) -> str:
    """A macro's output as a reader reads it (its marking markup left out)."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


class _Plain:
    """macros.X(...) as text, each output checked to carry the mark the rendered audit looks for."""
    def __getattr__(self, name):
        def call(*args, **kwargs):
            out = getattr(macros, name)(*args, **kwargs)
            assert pages.MARK_ATTRIBUTE in out, out
            return _text(out)
        return call


plain = _Plain()


def _new(original: str, mutated: str, entry: str | None = None) -> list[str]:
    """Problems of `mutated` that `original` does not have (line numbers left out)."""
    def strip(problems):
        return Counter(re.sub(r"^line \d+: ", "", p) for p in problems)
    return sorted((strip(pages.audit(mutated, entry)) - strip(pages.audit(original, entry))).elements())


@pytest.fixture(scope="module")
def entry_page():
    """(text, entry, snippet): a real entry page and one of its snippets that it both includes
    and shows with an outcome() box."""
    for page in sorted((DOCS / "e").glob("*.md")):
        text = page.read_text()
        for path in registry.Entry(page.stem, "", "published").snippets:
            name = f"{page.stem}/{path.name}"
            if f'--8<-- "{name}:example"' in text and re.search(rf'outcome\(\s*"{re.escape(name)}"', text):
                return text, page.stem, name
    pytest.skip("no entry page includes a snippet and shows its outcome")


# ---- (a) skip markers ----------------------------------------------------------------------------

MARKERS = ["<!-- pytest.mark.skip -->", "<!--pytest.mark.skip-->", "  <!--   pytest.mark.skip   -->",
           "<!-- pytest.mark.skipif(True, reason='x') -->", "<!-- pytest.mark.xfail -->",
           "<!--pytest-codeblocks:skip-->", "<!--- pytest-codeblocks: skip --->",
           "<!-- pytest-codeblocks:skipif(True) -->", "<!-- pytest-codeblocks:importorskip(nonexistent) -->",
           "<!-- pytest-codeblocks:expect-error -->"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pytest-codeblocks on its old spellings
@pytest.mark.parametrize("marker", MARKERS)
def test_skip_marker_before_a_python_fence(entry_page, marker):
    text, entry, _ = entry_page
    block = f"\n{marker}\n```python\nprint(1)\n```\n"
    blocks = extract_from_buffer(io.StringIO(block))  # the spelling really marks the block
    assert blocks and (blocks[0].marks or blocks[0].importorskip), marker
    new = _new(text, text + block, entry)
    assert any("skip" in p and "marker" in p and marker.strip() in p for p in new), new


def test_skipfile_marker(entry_page):
    text, entry, _ = entry_page
    assert extract_from_buffer(io.StringIO("<!--pytest-codeblocks:skipfile-->\n```python\nx\n```\n")) == []
    new = _new(text, "<!--pytest-codeblocks:skipfile-->\n" + text, entry)
    assert any("pytest-codeblocks:skipfile" in p for p in new), new


def test_importorskip_in_an_executed_block(entry_page):
    text, entry, _ = entry_page
    new = _new(text, text + '\n<!-- pytest.mark.skip -->\n```python\nimport pytest\npytest.importorskip("nothing")\n```\n',
               entry)
    assert any("importorskip" in p for p in new) and any("pytest.mark.skip" in p for p in new), new


def test_codeblocks_directives_that_skip_nothing():
    text = "# T\n\n```python\nx = 1\n```\n\n<!--pytest-codeblocks:cont-->\n\n```python\nprint(x)\n```\n"
    assert pages.audit(text + "<!-- pytest-codeblocks:expected-output -->\n\n```\n1\n```\n") == \
        ["line 14: ``` block is neither a snippet include, an executed block, a checked source quote, nor inside "
         "a '!!! note \"Not run: <reason>\"' admonition"]


def test_marker_named_in_inline_code_is_prose():
    """pytest-codeblocks only reads a marker that starts a line, so prose may name one."""
    text = "# T\n\nNever write `<!-- pytest.mark.skip -->` or `pytest-codeblocks:skip` on a page.\n"
    assert pages.audit(text) == []


# ---- (b) source quotes ---------------------------------------------------------------------------

def test_quote_of_a_release_no_environment_pins():
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        m = pages.QUOTE.search(text)
        if m:
            break
    else:
        pytest.skip("no page quotes source")
    mutated = text[:m.start("version")] + "0.0.1" + text[m.end("version"):]
    new = _new(text, mutated)
    assert any(f"no environment pins {m['dist']}==0.0.1" in p for p in new), new


def test_quote_of_a_pinned_release_is_not_a_failure():
    env = envs.default()
    dist, version = next((d, v) for d, v in env.pins().items() if d in ("tensorflow", "tensorflow-cpu"))
    text = f'# T\n\n```python title="{dist} {version} · tensorflow/__init__.py"\nimport nothing_of_the_sort\n```\n'
    skipped = []
    problems = pages.audit(text, skipped=skipped)
    assert not any("no environment pins" in p for p in problems)
    assert skipped or problems  # checked (and not verbatim) where built, skipped where not


# ---- (c) and (d): comments, includes, outcome boxes ----------------------------------------------

def test_include_moved_into_a_comment(entry_page):
    text, entry, snippet = entry_page
    fence = next(m for m in pages.FENCE.finditer(text) if f'--8<-- "{snippet}:example"' in m["body"])
    mutated = text[:fence.start()] + "<!--\n" + fence.group(0) + "\n-->" + text[fence.end():]
    new = _new(text, mutated, entry)
    assert any(f"snippet {snippet} is not included" in p for p in new), new


def test_outcome_box_removed(entry_page):
    text, entry, snippet = entry_page
    mutated = re.sub(r"\{\{\s*outcome\(\s*\"" + re.escape(snippet) + r"\"[^}]*\}\}", "", text)
    new = _new(text, mutated, entry)
    assert any(f"snippet {snippet} has no outcome box" in p for p in new), new


def test_outcome_box_moved_into_a_comment(entry_page):
    text, entry, snippet = entry_page
    mutated = re.sub(r"(\{\{\s*outcome\(\s*\"" + re.escape(snippet) + r"\"[^}]*\}\})", r"<!-- \1 -->", text)
    new = _new(text, mutated, entry)
    assert any(f"snippet {snippet} has no outcome box" in p for p in new), new


def test_include_fence_must_be_titled_with_the_file(entry_page):
    text, entry, snippet = entry_page
    mutated = text.replace(f'```python title="snippets/{snippet}"', "```python title=\"somewhere\"", 1)
    new = _new(text, mutated, entry)
    assert any("snippet include's fence" in p for p in new), new


# ---- (e) versions: checked on the rendered pages (tests/test_rendered_audit.py) ---------------------

def test_a_diagram_is_no_code():
    """A Mermaid fence is drawn, not run, so the audit accepts it (its labels are checked as rendered)."""
    ok = '# T\n\n```mermaid\nflowchart LR\n  a["Keras 3 optimizer"] --> b["{{ version(\'tf2.4\') }}"]\n```\n'
    assert pages.audit(ok) == []


def test_line_numbers_survive_comments_and_macros():
    text = "# T\n\n<!--\n\n-->\n{{ x(\n) }}\n```text\nout\n```\n"
    assert pages.audit(text) == [pages.audit(text)[0]] and pages.audit(text)[0].startswith("line 8:")


def test_every_fence_the_audit_accepts_is_marked_for_the_rendered_audit(entry_page):
    """mark_fences (the build's hook) marks exactly the fences fences() accepts, with kind()'s word."""
    text, entry, _ = entry_page
    marked = pages.mark_fences(text)
    kinds = re.findall(rf'{pages.BLOCK_ATTRIBUTE}="([\w-]+)"', marked)
    assert kinds and set(kinds) <= set(pages.BLOCK_KINDS)
    assert len(kinds) == len([m for m in pages.FENCE.finditer(text) if m["info"].strip() not in pages.DIAGRAM_INFO])
    bare = text + "\n```text\nnot accounted for\n```\n"
    assert pages.mark_fences(bare).endswith("```text\nnot accounted for\n```\n")
    assert any("neither a snippet include" in p for p in pages.audit(bare, entry))


# ---- the macros against the committed evidence ----------------------------------------------------

def test_claim_word_changed_from_raises_to_passes():
    known = {e.name for e in envs.load()}
    for (snippet, env), record in sorted(evidence.load().items()):
        path = envs.ROOT / snippet
        if record["outcome"] == "raised" and env in known and path.exists() and runner.sha256(path) == record["sha256"]:
            break
    else:
        pytest.skip("no current evidence of a raised run")
    name = path.relative_to(runner.SNIPPETS).as_posix()
    assert plain.claim(name, "raises", env) == plain.version(env)
    assert plain.claim(name, f"raises {record['exception']}", env) == plain.version(env)
    with pytest.raises(ValueError, match=rf"does not 'passes' on {re.escape(env)}"):
        plain.claim(name, "passes", env)


# ---- the macros on synthetic evidence ----------------------------------------------------------------

ENVS = [("tf2.21-keras3", "2.21.0", "keras", "3.15.1"), ("tf2.21-tfkeras", "2.21.0", "tf-keras", "2.21.0"),
        ("tf1.15", "1.15.0", "tf.keras", None), ("tf2.0.4", "2.0.4", "tf.keras", None),
        ("tf2.1.0", "2.1.0", "tf.keras", None), ("tf2.2", "2.2.3", "tf.keras", "2.3.0-tf")]
RELEASES = ["1.15.0", "1.15.2", "2.0.4", "2.1.0", "2.1.1", "2.2.0", "2.2.3", "2.21.0"]


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Environments, lock files, one snippet, its evidence and the release list, all synthetic.
    Returns set_outcomes(**{env: outcome}) which rewrites the evidence."""
    pins = tmp_path / "pins"
    pins.mkdir()
    for name, tf, _, _ in ENVS:
        (pins / f"{name}.txt").write_text(f"tensorflow=={tf}\n")
    (tmp_path / "releases.txt").write_text("# header\n" + "\n".join(RELEASES) + "\n")
    snippet = tmp_path / "snippets" / "TFD999" / "x.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text("print('x')\n")
    monkeypatch.setattr(envs, "ROOT", tmp_path)
    monkeypatch.setattr(envs, "PINS", pins)
    monkeypatch.setattr(envs, "load", lambda: [envs.Env(n, "3.11", "") for n, *_ in ENVS])
    monkeypatch.setattr(runner, "SNIPPETS", tmp_path / "snippets")
    monkeypatch.setattr(macros, "RELEASES", tmp_path / "releases.txt")
    monkeypatch.delenv("TFDIST_PREVIEW", raising=False)
    declared = {}
    monkeypatch.setattr(runner, "expectations", lambda path: {n: declared.get(n, expect.Expectation("passes"))
                                                              for n, *_ in ENVS})
    sha = runner.sha256(snippet)

    def set_outcomes(**outcomes):
        records = {}
        for name, tf, package, keras in ENVS:
            said = outcomes.get(name.replace(".", "_").replace("-", "_"), "passed")
            if said == "wrong":
                declared[name], said = expect.Expectation("prints", match="x"), "passed"
            exception = said.split(":")[1] if said.startswith("raised") else None
            records[("snippets/TFD999/x.py", name)] = {
                "snippet": "snippets/TFD999/x.py", "env": name, "tensorflow": tf, "keras": keras,
                "keras_package": package, "python": "3.11.7", "sha256": sha, "outcome": said.split(":")[0],
                "exception": exception, "message": "m", "reason": "r" if said == "not-applicable" else None,
                "replicas": 4, "seconds": 60.0, "stdout": ""}
        monkeypatch.setattr(evidence, "load", lambda path=None: records)
        return records
    return set_outcomes


def test_claim_renders_the_named_environments(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError")
    assert plain.claim("TFD999/x.py", "raises", "tf2.0.4", "tf1.15") == "TF 1.15.0 and 2.0.4"  # version order
    assert plain.claim("TFD999/x.py", "raises RuntimeError", "tf1.15") == "TF 1.15.0"
    assert plain.claim("TFD999/x.py", "raises") == "TF 1.15.0 and 2.0.4"
    assert plain.claim("TFD999/x.py", "passes", "tf2.21-keras3", "tf2.21-tfkeras") == \
        "TF 2.21.0 with Keras 3.15.1 and TF 2.21.0 with tf-keras 2.21.0"
    assert plain.claim("TFD999/x.py", "passes") == ("TF 2.1.0, TF 2.2.3, TF 2.21.0 with Keras 3.15.1 and "
                                                     "TF 2.21.0 with tf-keras 2.21.0")


def test_claim_words(world):
    world(tf1_15="timed-out", tf2_0_4="not-applicable", tf2_1_0="wrong")
    assert plain.claim("TFD999/x.py", "hangs") == "TF 1.15.0"
    assert plain.claim("TFD999/x.py", "n/a") == "TF 2.0.4"
    assert plain.claim("TFD999/x.py", "wrong-result") == "TF 2.1.0"
    with pytest.raises(ValueError, match="does not 'passes' on tf2.1.0"):
        plain.claim("TFD999/x.py", "passes", "tf2.1.0")  # a documented wrong result does not pass


def test_reductions_render_what_each_run_recorded(world, monkeypatch):
    records = world(tf1_15="not-applicable")
    for (_, env), record in records.items():
        record["reduction"] = "ReductionToOneDevice" if env in ("tf2.0.4", "tf2.1.0") else "CollectiveAllReduce (RING)"
    assert plain.reductions("TFD999/x.py", "tf2.1.0", "tf2.0.4") == "`ReductionToOneDevice` on TF 2.0.4 and 2.1.0"
    assert plain.reductions("TFD999/x.py", "tf2.2", "tf2.0.4") == \
        "`CollectiveAllReduce (RING)` on TF 2.2.3; `ReductionToOneDevice` on TF 2.0.4"
    assert "tf1.15" not in plain.reductions("TFD999/x.py")  # not run there: nothing to say
    records[("snippets/TFD999/x.py", "tf2.2")]["reduction"] = None
    with pytest.raises(ValueError, match=r"no recorded reduction on tf2\.2"):
        plain.reductions("TFD999/x.py", "tf2.2")
    with pytest.raises(ValueError, match="no recorded reduction on tf1.15"):
        plain.reductions("TFD999/x.py", "tf1.15")


@pytest.mark.parametrize("args, error", [
    (("passes", "tf1.15"), r"does not 'passes' on tf1.15 \(recorded: tf1.15: raises ValueError\)"),
    (("raises TypeError", "tf1.15"), "does not 'raises TypeError' on tf1.15"),
    (("raises", "tf1.15", "tf2.2"), "does not 'raises' on tf2.2"),
    (("hangs",), "'hangs' in no environment"),
    (("passes", "tf9.9"), "unknown environment 'tf9.9'"),
    (("pass", "tf1.15"), "outcome 'pass' is not one of"),
])
def test_claim_fails_when_the_evidence_disagrees(world, args, error):
    world(tf1_15="raised:ValueError")
    with pytest.raises(ValueError, match=error):
        plain.claim("TFD999/x.py", *args)


def test_claim_on_stale_evidence(world, monkeypatch):
    world(tf1_15="raised:ValueError")
    (runner.SNIPPETS / "TFD999" / "x.py").write_text("print('changed')\n")
    with pytest.raises(macros.StaleEvidence, match="stale: run make matrix"):
        plain.claim("TFD999/x.py", "raises", "tf1.15")
    with pytest.raises(macros.StaleEvidence, match="no snippet"):
        plain.claim("TFD999/nothing.py", "raises", "tf1.15")
    monkeypatch.setenv("TFDIST_PREVIEW", "1")
    assert "preview only" in macros.claim("TFD999/x.py", "raises", "tf1.15")
    assert "preview only" in macros.bisection("TFD999/x.py")
    with pytest.raises(ValueError, match="unknown environment"):
        plain.claim("TFD999/x.py", "raises", "tf9.9")


def test_claim_mismatch_fails_in_preview_too(world, monkeypatch):
    world(tf1_15="raised:ValueError")
    monkeypatch.setenv("TFDIST_PREVIEW", "1")
    with pytest.raises(ValueError, match="does not 'passes'"):
        plain.claim("TFD999/x.py", "passes", "tf1.15")


def test_version(world):
    records = world(tf2_2="not-applicable")
    assert plain.version("tf1.15") == "TF 1.15.0"
    assert plain.version("tf2.21-tfkeras") == "TF 2.21.0 with tf-keras 2.21.0"
    with pytest.raises(ValueError, match="unknown environment 'tf2.4'"):
        plain.version("tf2.4")
    with pytest.raises(ValueError, match="no executed run on tf2.2"):
        plain.version("tf2.2")
    records[("snippets/TFD999/x.py", "tf1.15")]["tensorflow"] = "1.15.2"
    with pytest.raises(ValueError, match="recorded with TensorFlow 1.15.2, but its lock file pins 1.15.0"):
        plain.version("tf1.15")


def test_bisection_finds_adjacent_releases(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError")
    assert plain.bisection("TFD999/x.py") == ("TF 2.0.4 is the last release that raises it and TF 2.1.0 the first "
                                               "that passes; no TensorFlow release lies between them")


def test_bisection_ignores_environments_where_it_does_not_apply(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="not-applicable")
    with pytest.raises(ValueError, match="not adjacent releases: 1.15.2, 2.0.4 lie between them"):
        plain.bisection("TFD999/x.py")


def test_bisection_non_adjacent_releases_fail(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError", tf2_1_0="raised:RuntimeError")
    with pytest.raises(ValueError, match=r"TF 2.1.0 \(raises RuntimeError\) and TF 2.2.3 \(passes\) are not adjacent"
                                         r" releases: 2.1.1, 2.2.0 lie between them"):
        plain.bisection("TFD999/x.py")


def test_bisection_two_changes_fail(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError", tf2_21_keras3="timed-out",
          tf2_21_tfkeras="timed-out")
    with pytest.raises(ValueError, match="changes 2 times, not once"):
        plain.bisection("TFD999/x.py")
    # named environments bisect the first change only
    assert plain.bisection("TFD999/x.py", "tf1.15", "tf2.0.4", "tf2.1.0").startswith("TF 2.0.4 is the last")


def test_bisection_no_change_fails(world):
    world()
    with pytest.raises(ValueError, match="changes 0 times"):
        plain.bisection("TFD999/x.py")


def test_bisection_same_release_must_agree(world):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError", tf2_21_keras3="raised:ValueError")
    with pytest.raises(ValueError, match="on TF 2.21.0 differs between environments"):
        plain.bisection("TFD999/x.py")


def test_bisection_release_missing_from_the_list(world, monkeypatch):
    world(tf1_15="raised:RuntimeError", tf2_0_4="raised:RuntimeError")
    (macros.RELEASES).write_text("1.15.0\n2.0.4\n")
    with pytest.raises(ValueError, match="TF 2.1.0 is not in releases.txt"):
        plain.bisection("TFD999/x.py")


def test_release_list_is_final_releases_in_order():
    releases = [line for line in (envs.PACKAGE / "envs" / "tensorflow-releases.txt").read_text().splitlines()
                if line and not line.startswith("#")]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", r) for r in releases)
    assert releases == sorted(releases, key=macros._key) and len(set(releases)) == len(releases)
    assert {"1.15.0", "2.0.4", "2.1.0", "2.21.0"} <= set(releases)


# ---- whole messages --------------------------------------------------------------------------------

WHOLE = ("in user code:\n\n    File \"x.py\", line 3, in step  *\n        opt.apply(grads)\n\n"
         "    ValueError: Need to be inside `strategy.scope()` <for> *this* [variable] | x_y\n")


def test_outcome_shows_headline_and_whole_message(world):
    records = world(tf1_15="raised:ValueError")
    record = records[("snippets/TFD999/x.py", "tf1.15")]
    record.update(message=WHOLE.strip(), headline="Need to be inside `strategy.scope()` <for> *this* [variable] | x_y")
    box = macros.outcome("TFD999/x.py", "tf1.15")
    assert "ValueError: Need to be inside `strategy.scope()`" in box
    assert '??? note "Whole message"' in box and "in user code:" in box
    record.update(message="Need to be inside", headline=None)  # evidence before headlines were recorded
    box = macros.outcome("TFD999/x.py", "tf1.15")
    assert "ValueError: Need to be inside" in box and "Whole message" not in box


def test_outcome_fence_is_not_closed_by_the_message(world):
    records = world(tf1_15="raised:ValueError")
    records[("snippets/TFD999/x.py", "tf1.15")].update(message="a\n```\nb", headline="a")
    box = macros.outcome("TFD999/x.py", "tf1.15")
    assert '````{.text data-tfd-block="record"}\n' in box


def test_outcome_message_is_text_behind_a_disclosure(world):
    """The message behind an outcome is a native <details> (reachable by tap and keyboard, printed
    opened), holding the message as text: no tag of it reaches the page, no | splits a cell."""
    records = world(tf1_15="raised:ValueError")
    headline = "Need to be inside `strategy.scope()` <for> *this* [variable] | x_y & \"z\""
    records[("snippets/TFD999/x.py", "tf1.15")].update(message=WHOLE, headline=headline)
    rendered = markdown.markdown(macros.outcomes("TFD999"), extensions=["tables", "md_in_html", "attr_list"])
    details = re.findall(r'<details class="tfd-why"><summary>(.*?)</summary>(.*?)</details>', rendered, re.DOTALL)
    raised = [body for summary, body in details if "ValueError" in summary]
    assert len(raised) == 1, rendered
    assert "<for>" not in raised[0] and "title=" not in rendered
    assert html.unescape(re.sub(r"<[^>]+>", "", raised[0])) == f"ValueError: {headline}"
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", rendered, re.DOTALL)
    assert all(row.count("<td>") in (0, 2) for row in rows), rendered  # the | in the message split nothing


def test_outcomes_lists_every_environment_once_per_snippet(world):
    """One row per outcome: environments with the same outcome share a row; none is left out."""
    world(tf1_15="raised:ValueError", tf2_0_4="raised:ValueError", tf2_1_0="not-applicable", tf2_2="wrong")
    rendered = macros.outcomes("TFD999")
    rows = re.findall(r'<tr class="tfd-row-(\w+)"><td>.*?</td><td>(.*?)</td></tr>', rendered)
    listed = {kind: re.findall(r'<code class="tfd-v" data-tfd-from="envs">([^<]+)</code>', chips) for kind, chips in rows}
    assert listed == {"pass": ["tf2.21-keras3", "tf2.21-tfkeras"], "raised": ["tf1.15", "tf2.0.4"],
                      "na": ["tf2.1.0"], "wrong": ["tf2.2"]}


# ---- (g) the "What users see" box: rendered from the evidence --------------------------------------

def test_users_see_groups_wordings_with_their_releases(world):
    records = world(tf1_15="raised:ValueError", tf2_0_4="raised:ValueError", tf2_1_0="raised:TypeError")
    records[("snippets/TFD999/x.py", "tf1.15")]["headline"] = "slot under another scope (<obj at 0x…>)"
    records[("snippets/TFD999/x.py", "tf2.0.4")]["headline"] = "slot under another scope (<obj at 0x…>)"
    records[("snippets/TFD999/x.py", "tf2.1.0")]["headline"] = "not a tensor"
    marked = macros.users_see("TFD999/x.py")
    assert pages.MARK_ATTRIBUTE in marked
    box = re.sub(r"<span [^>]*>([^<]*)</span>", r"\1", marked)  # the releases, unmarked; the messages as they are
    assert box.index("TF 2.1.0") < box.index("TypeError: not a tensor") < box.index("TF 1.15.0 and 2.0.4")
    assert box.count("ValueError: slot under another scope (<obj at 0x…>)") == 1
    assert '```{.text data-tfd-block="record"}' in box


def test_users_see_shows_the_wrong_output_of_a_silent_failure(world):
    records = world(tf1_15="wrong")
    records[("snippets/TFD999/x.py", "tf1.15")]["stdout"] = "step 1\nreplica ids seen: [0, 0, 0, 0]\ndone"
    box = plain.users_see("TFD999/x.py", "tf1.15", lines="replica ids")
    assert "replica ids seen: [0, 0, 0, 0]" in box and "step 1" not in box and "without any error" in box


def test_users_see_fails_where_nothing_went_wrong(world):
    world()
    with pytest.raises(ValueError, match="neither raised nor printed a wrong result"):
        plain.users_see("TFD999/x.py")


BOX = '!!! question "What users see"\n    Training stops at once:\n\n    {{ users_see("X/y.py") | indent(4) }}\n\n'


@pytest.mark.parametrize("body, problem", [
    ('!!! question "What users see"\n    Training stops with `ValueError: slot under another scope`.\n\n',
     "types its message"),
    (BOX + "    It says `ValueError: slot under another scope` too.\n\n", "types the message 'ValueError: slot"),
    ("Intro.\n\n", 'no "What users see" box'),
    ("## Short answer\n\n" + BOX, 'no "What users see" box'),
])
def test_users_see_box_must_be_rendered(body, problem):
    page = "# Title\n\n" + body + "## Short answer\n- x\n"
    assert any(problem in p for p in pages.users_see_box(page)), pages.users_see_box(page)


def test_users_see_box_may_quote_a_cited_wording_in_a_fold():
    page = ("# Title\n\n" + BOX + '    ??? note "Other messages"\n        `ValueError: as reported in #1`\n\n'
            "## Short answer\n- x\n")
    assert pages.users_see_box(page) == []


def test_every_entry_page_box_is_rendered():
    for page in sorted((DOCS / "e").glob("*.md")):
        assert pages.users_see_box(pages._blank(page.read_text(), pages.COMMENT)) == [], page.name


# ---- what the macros mark must be what the evidence, the snippet or the locks hold ------------------

def test_printed_and_in_snippet_mark_only_what_the_run_printed_or_the_file_holds(world):
    records = world()
    for record in records.values():
        record["stdout"] = "w after one step: 0.2 (one device: 0.8)"
    assert plain.printed("TFD999/x.py", "w after one step: 0.2", "tf1.15") == "w after one step: 0.2"
    records[("snippets/TFD999/x.py", "tf2.2")]["stdout"] = "w after one step: 0.5"
    with pytest.raises(ValueError, match=r"did not print 'w after one step: 0\.2' on tf2\.2"):
        macros.printed("TFD999/x.py", "w after one step: 0.2", "tf1.15", "tf2.2")
    assert plain.in_snippet("TFD999/x.py", "print('x')") == "print('x')"
    with pytest.raises(ValueError, match="does not contain 'w = 1.0'"):
        macros.in_snippet("TFD999/x.py", "w = 1.0")


def test_a_not_applicable_reason_names_only_pinned_releases(world):
    records = world(tf1_15="not-applicable")
    record = records[("snippets/TFD999/x.py", "tf1.15")]
    record["reason"] = "TF 1.15 has no Strategy.run"  # a release a lock pins (as a prefix)
    box = macros.outcome("TFD999/x.py", "tf1.15")
    assert f'{pages.MARK_ATTRIBUTE}="envs">TF 1.15 has no Strategy.run' in box
    record["reason"] = "removed in TF 2.16, per its release notes"  # typed, pinned nowhere
    with pytest.raises(ValueError, match="'2.16'.*no release an environment pins"):
        macros.outcome("TFD999/x.py", "tf1.15")
    with pytest.raises(ValueError, match="'2.16'"):
        macros.outcomes("TFD999")
