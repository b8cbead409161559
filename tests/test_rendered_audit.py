"""The rendered audit (tfdist_kb.site.pages, sections h and i) on what readers get, not on the Markdown:

- versions only where the evidence put them: in the built HTML of both languages, every
  version-like token outside code blocks lies inside an element a macro marked (data-tfd-from), or
  inside a <q cite="https://..."> quoting a cited report; errors.json (the site's and the package
  data that `tfdist explain` reads) types no version outside the fields generated from the evidence;
- every code block accounted for: each <pre> carries data-tfd-block naming its kind (an included
  snippet, a block pytest-codeblocks runs, a checked source quote, a recorded output, or inside a
  "Not run: <reason>" admonition); a bare one fails, an indented block included.

The site is the session's one strict build (tests/conftest.py); the mutations render altered copies
of pages in one small build of their own (a temporary docs folder, the project's config, hooks and
macros), or alter a copy of the rendered output, and each must turn the audit red.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from tfdist_kb.proof import envs
from tfdist_kb.site import errors, pages, registry

ROOT = registry.ROOT
PACKAGE_DATA = ROOT / "tfdist" / "src" / "tfdist" / "data" / "errors.json"
def _pages(site: Path) -> list[Path]:
    """Every built page, the generated notebooks' included (their code cells are marked as notebook
    code by the hook; their Markdown cells are audited like any prose)."""
    return sorted(site.rglob("*.html"))


# ---- the site as built ------------------------------------------------------------------------------

def test_every_version_on_the_site_is_marked(site):
    problems, checked = [], 0
    for page in _pages(site):
        checked += 1
        problems += [f"{page.relative_to(site)}: {p}" for p in pages.rendered_versions(page.read_text(encoding="utf-8"))]
    assert checked > 2 * len(registry.load()), "both languages' pages were checked"
    assert not problems, f"{len(problems)} unmarked versions:\n" + "\n".join(problems[:40])


def test_no_code_renders_inside_code(site):
    """A message is text: backticks in a recorded message never open a code span inside its code
    (the error index shows `merge_call` messages; they keep their backticks as characters)."""
    nested = re.compile(r"<code\b[^>]*>(?:(?!</code>).)*?<code\b", re.S)
    problems = [str(page.relative_to(site)) for page in _pages(site) if nested.search(page.read_text(encoding="utf-8"))]
    assert not problems, "code inside code on: " + ", ".join(problems[:20])
    index = (site / "errors" / "index.html").read_text(encoding="utf-8")
    assert "&#96;merge_call&#96;" in index or "`merge_call`" in index, "the error index shows the backticked message"


def test_macros_mark_what_they_render(site):
    """The check above is not vacuous: entry pages do show releases, all of them marked."""
    page = (site / "e" / "TFD001" / "index.html").read_text(encoding="utf-8")
    assert len(pages.marked_tokens(page)) >= 3 and f'{pages.MARK_ATTRIBUTE}="evidence"' in page


def test_every_code_block_on_the_site_is_accounted_for(site):
    problems, kinds = [], set()
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        kinds |= set(re.findall(rf'{pages.BLOCK_ATTRIBUTE}="([\w-]+)"', text))
        problems += [f"{page.relative_to(site)}: {p}" for p in pages.rendered_blocks(text)]
    assert not problems, "\n".join(problems[:40])
    assert {"snippet", "quote", "record", "executed", "not-run"} <= kinds, kinds


@pytest.mark.parametrize("which", ["site", "package"])
def test_errors_json_types_no_version(site, which):
    index = json.loads((site / "errors.json" if which == "site" else PACKAGE_DATA).read_text(encoding="utf-8"))
    assert any(run.get("tensorflow") for entry in index["entries"] for run in entry.get("reproduced", []))
    assert pages.plain_versions(index) == []


# ---- mutations rendered through the project's own pipeline ------------------------------------------

CLAIM = '{{ claim("TFD001/build_optimizer_in_scope.py", "passes", "tf2.4") }}'
QUOTE = "https://github.com/tensorflow/tensorflow/issues/62790"
# name -> (Markdown appended to a copy of a real page, what the audit must name)
MUTATIONS = {
    "string_literal": ('It was fixed in {{ "2.6" }}.', "2.6"),
    "after_comment_in_inline_code": ("Write `<!--` to open a comment; it was fixed in TF 2.6 -->.", "2.6"),
    "no_break_space": ("It was fixed in TF\u00a02.6.", "2.6"),
    "nbsp_entity": ("It was fixed in TF&nbsp;2.6.", "2.6"),
    "version_word": ("It was fixed in version 2.6.", "2.6"),
    "bold": ("It was fixed in TF **2.6**.", "2.6"),
    "r_prefix": ("It was fixed in r2.6.", "2.6"),
    "hyphen": ("It was fixed in TensorFlow-2.6.", "2.6"),
    "chinese": ("这个问题在 2.6 版本中修复了。", "2.6"),
    "full_width": ("It was fixed in TF ２．６.", "2.6"),
    "spaced_dots": ("It was fixed in TF 2 . 6 .", "2.6"),
    "python": ("It needs Python 3.12.", "3.12"),
    "environment_name": ("Run it with `--env tf2.6`.", "2.6"),
    "heading": ("## Fixed in TF 2.6", "2.6"),
    "link_text": (f"See [the 2.6 notes]({QUOTE}).", "2.6"),
    "table": ("| a | b |\n|---|---|\n| fixed | TF 2.6 |", "2.6"),
    "admonition_title": ('!!! note "Fixed in TF 2.6"\n\n    Upgrade.', "2.6"),
    "tooltip": ('<span title="fixed in TF 2.6">fixed</span>', "2.6"),
    "own_claim_in_q": ("<q>It was fixed in TF 2.6.</q>", "2.6"),
    "q_citing_this_site": ('<q cite="http://127.0.0.1:8000/e/TFD001/">It was fixed in TF 2.6.</q>', "2.6"),
    "q_with_cite_not_a_url": ('<q cite="our own test">It was fixed in TF 2.6.</q>', "2.6"),
    "typed_next_to_a_claim": (f"It passes on {CLAIM} and TF 2.6.", "2.6"),
    # the spellings the Markdown audit used to list (tfdist_kb.site.pages no longer keeps such lists)
    "named_tf_keras": ("It changed in tf.keras 2.4 somewhere.", "2.4"),
    "named_keras": ("It changed in Keras 2.15 somewhere.", "2.15"),
    "named_tensorflow_cpu": ("It changed in tensorflow-cpu 2.1.0 somewhere.", "2.1.0"),
    "three_part_in_parentheses": ("It changed somewhere (v2.5.0).", "2.5.0"),
    "environment_in_prose": ("It passes on tf2.21-keras3.", "2.21"),
    "environment_in_inline_code": ("It passes on `tf2.4`.", "2.4"),
}
ALLOWED = {  # each must stay green: the audit accepts what the evidence or a cited report says
    "claim": f"It passes on {CLAIM}.",
    "version": 'The optimizer of {{ version("tf2.4") }}.',
    "cited_quotation": f'The report says <q cite="{QUOTE}">it fails on 2.15 too</q>.',
    "code_block": '!!! note "Not run: shows a version string"\n\n    ```text\n    2.6.0\n    ```',
    "no_version": "Keras 3, TF 2 and 4 replicas.",
}
BLOCKS = {  # code blocks nothing accounts for
    "indented": ("Run this:\n\n    import tensorflow as tf\n    print(tf.__version__)\n", "indented"),
    "unmarked_fence": ("```text\nsome output\n```", "unmarked"),
    "html_pre": ("<pre>print(1)</pre>", "html"),
}


def _mini_site(tmp: Path, sources: dict[str, str]) -> Path:
    """`sources` ({name: markdown}) built as pages of a small site with mkdocs.yml's plugins, hooks
    and macros; the built site's folder."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    docs = tmp / "docs"
    (docs / "m").mkdir(parents=True)
    shutil.copytree(registry.DOCS / "stylesheets", docs / "stylesheets")
    (docs / "index.md").write_text("# Home\n")
    (docs / "index.zh.md").write_text("# 首页\n")
    for name, text in sources.items():
        (docs / "m" / f"{name}.md").write_text(text, encoding="utf-8")
    config = load_config(config_file=str(ROOT / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(tmp / "site"),
                         strict=False)
    from tfdist_kb.site import i18n

    language = i18n.language()
    try:
        build(config)
    finally:
        i18n.set_language(language)  # the build leaves the last language it built (zh) as the current one
    return tmp / "site"


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    """{name: the rendered HTML of a real page's copy with that mutation appended}, one build for all."""
    base = (registry.DOCS / "e" / "TFD001.md").read_text(encoding="utf-8")
    base = re.sub(r"\A---\n.*?\n---\n", "", base, flags=re.DOTALL)  # a page, not a second entry TFD001
    sources = {"original": base}
    sources |= {f"bad_{name}": f"{base}\n\n{text}\n" for name, (text, _) in MUTATIONS.items()}
    sources |= {f"ok_{name}": f"{base}\n\n{text}\n" for name, text in ALLOWED.items()}
    sources |= {f"block_{name}": f"{base}\n\n{text}\n" for name, (text, _) in BLOCKS.items()}
    site = _mini_site(tmp_path_factory.mktemp("mutated"), sources)
    return {name: (site / "m" / name / "index.html").read_text(encoding="utf-8") for name in sources}


def test_the_copied_page_is_clean(mutated):
    assert pages.rendered_versions(mutated["original"]) == []
    assert pages.rendered_blocks(mutated["original"]) == []
    assert len(pages.marked_tokens(mutated["original"])) >= 3


@pytest.mark.parametrize("name", MUTATIONS)
def test_a_typed_version_turns_the_rendered_audit_red(mutated, name):
    _, token = MUTATIONS[name]
    problems = pages.rendered_versions(mutated[f"bad_{name}"])
    assert any(f"{token!r}" in p for p in problems), problems


@pytest.mark.parametrize("name", ALLOWED)
def test_what_the_evidence_or_a_cited_report_says_stays_green(mutated, name):
    assert pages.rendered_versions(mutated[f"ok_{name}"]) == []
    assert pages.rendered_blocks(mutated[f"ok_{name}"]) == []


@pytest.mark.parametrize("name", BLOCKS)
def test_a_code_block_nothing_accounts_for_turns_the_audit_red(mutated, name):
    assert len(pages.rendered_blocks(mutated[f"block_{name}"])) == 1


# ---- mutations of the rendered output and of the error index -----------------------------------------

def test_a_marker_removed_from_the_built_page_turns_it_red(site):
    page = (site / "e" / "TFD001" / "index.html").read_text(encoding="utf-8")
    assert pages.rendered_versions(page) == []
    assert pages.rendered_versions(page.replace(pages.MARK_ATTRIBUTE, "data-x"))
    assert pages.rendered_blocks(page.replace(pages.BLOCK_ATTRIBUTE, "data-x"))
    assert pages.rendered_blocks(page.replace(f'{pages.BLOCK_ATTRIBUTE}="snippet"', f'{pages.BLOCK_ATTRIBUTE}="x"'))


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_a_notebook_page_is_audited_like_any_page(site, lang):
    """A generated notebook's page: its Markdown cells show environments and releases only as marked
    output, its code cells and outputs carry the notebook kind; removing either marker turns it red,
    and so does a version typed into a Markdown cell."""
    page = (site / f"{lang}notebooks" / "TFD001" / "index.html").read_text(encoding="utf-8")
    assert pages.rendered_versions(page) == [] and pages.rendered_blocks(page) == []
    assert len(pages.marked_tokens(page)) >= 3 and f'{pages.BLOCK_ATTRIBUTE}="notebook"' in page
    assert pages.rendered_versions(page.replace(pages.MARK_ATTRIBUTE, "data-x"))
    assert pages.rendered_blocks(page.replace(f'{pages.BLOCK_ATTRIBUTE}="notebook"', "data-x"))
    cell = page.index('class="jp-RenderedHTMLCommon')
    typed = page[:page.index("<p>", cell) + 3] + "Fixed in TF 2.6. " + page[page.index("<p>", cell) + 3:]
    assert any("'2.6'" in p for p in pages.rendered_versions(typed))


def test_a_restart_reason_names_only_pinned_releases(tmp_path):
    """The restart-kernel reason a notebook shows is author text next to the runs: like a
    not-applicable reason, a release in it must be one a lock file pins."""
    from tfdist_kb.site import notebooks

    snippet = tmp_path / "x.py"
    header = '# /// tfdist\n# restart-kernel = "{}"\n# [expect]\n# default = "passes"\n# ///\n'
    snippet.write_text(header.format("the keys collide since TF 9.7"))
    with pytest.raises(ValueError, match="'9.7'"):
        notebooks.restart_reason(snippet)
    numpy = envs.default().pins()["numpy"]  # pinned, but no TensorFlow, Keras or Python release
    snippet.write_text(header.format(f"the keys collide since TF {numpy}"))
    with pytest.raises(ValueError, match=re.escape(repr(numpy))):
        notebooks.restart_reason(snippet)
    snippet.write_text(header.format("the keys collide on TF 2.15 (tensorflow/tensorflow#62790)"))
    assert 'data-tfd-from="envs"' in notebooks.restart_reason(snippet)


def test_a_diagram_label_may_show_only_what_a_macro_gave_it(site):
    """A drawn diagram's labels are SVG text: a version there must be one of the values the macros
    gave its labels (tfdist_kb.site.diagrams lists them on the figure); a typed label is red."""
    page = (site / "e" / "TFD001" / "index.html").read_text(encoding="utf-8")
    figure = re.search(r'<figure class="tfd-diagram"[^>]*data-tfd-values="[^"]+"[^>]*>', page)
    assert figure and pages.rendered_versions(page) == []
    label = re.search(r"(<tspan[^>]*>)([^<]*)(</tspan>)", page[figure.end():])
    at = figure.end() + label.start(2)
    typed = page[:at] + "slots on TF 2.6 " + page[at:]
    assert any("'2.6'" in p for p in pages.rendered_versions(typed))
    unlisted = page.replace(figure.group(0), re.sub(r' data-tfd-values="[^"]+"', "", figure.group(0)))
    assert pages.rendered_versions(unlisted), "the labels' versions are accepted only as the macros' values"


def test_a_marker_typed_by_hand_must_name_a_source(site):
    """A hand-typed <span> without the attribute (or with a made-up source) marks nothing."""
    page = (site / "e" / "TFD001" / "index.html").read_text(encoding="utf-8")
    for span in ('<span class="tfd-v">TF 2.6</span>', f'<span {pages.MARK_ATTRIBUTE}="me">TF 2.6</span>'):
        mutated = page.replace("</article>", f"<p>{span}</p></article>", 1)
        assert any("'2.6'" in p for p in pages.rendered_versions(mutated)), span


@pytest.fixture
def docs_copy(tmp_path, monkeypatch):
    copy = tmp_path / "docs"
    shutil.copytree(registry.DOCS, copy)
    monkeypatch.setattr(registry, "DOCS", copy)
    return copy


@pytest.mark.parametrize("field, value", [
    ("fix", "Upgrade to TF 2.6, which fixes it."),
    ("fix", "Upgrade to version\u00a02.6."),
    ("title", "Fixed in r2.6"),
])
def test_a_version_typed_in_the_front_matter_reaches_errors_json_and_turns_it_red(docs_copy, field, value):
    """`fix:` and `title` reach errors.json, the package data and `tfdist explain`."""
    assert pages.plain_versions(errors.build()) == []
    page = docs_copy / "e" / "TFD001.md"
    text = page.read_text(encoding="utf-8")
    text, n = re.subn(rf"^{field}: .*$", lambda m: f"{field}: {json.dumps(value)}", text, count=1, flags=re.MULTILINE)
    assert n == 1
    page.write_text(text, encoding="utf-8")
    if field == "title":  # the registry holds the English title; the page must agree
        index = errors.build()
        index["entries"][0]["title"] = value
    else:
        index = errors.build()
    problems = pages.plain_versions(index)
    assert any("'2.6'" in p and f".{field}" in p for p in problems), problems


def test_versions_from_the_evidence_stay_in_errors_json():
    index = errors.build()
    runs = [run for entry in index["entries"] for run in entry["reproduced"]]
    assert runs and all(run["tensorflow"] for run in runs)
    assert pages.plain_versions({"entries": [{"id": "X", "reproduced": runs}]}) == []
    assert pages.plain_versions({"entries": [{"id": "X", "signatures": [r"fails on 2\.6"]}]})


def test_env_macro_checks_what_envs_toml_says_against_the_locks(monkeypatch):
    from tfdist_kb.site import macros

    assert pages.MARK_ATTRIBUTE in macros.environment(envs.default().name, "about")
    real = envs.load()
    changed = [dataclasses.replace(e, about=e.about + " (as in 9.9)") if i == 0 else e for i, e in enumerate(real)]
    monkeypatch.setattr(envs, "load", lambda: changed)
    with pytest.raises(ValueError, match="'9.9'.*no release an environment pins"):
        macros.environment(changed[0].name, "about")
