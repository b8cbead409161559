"""The site builds with --strict (broken links, anchors, missing --8<-- targets and macro errors
fail it), and the pages carry what the evidence says."""
import subprocess
import sys
from pathlib import Path

import pytest

from tfdist_kb.site import registry

ROOT = registry.ROOT


def test_entry_pages_have_permanent_urls(site):
    for entry in registry.load().values():
        if entry.status == "published":
            html = (site / "e" / entry.id / "index.html").read_text()
            assert entry.id in html
            assert "Verified on" in html and "Not verified" not in html, f"{entry.id}: no current evidence shown"


def test_each_page_shows_its_tags_in_its_language(site):
    """The front matter keeps the vocabulary's slugs; a Chinese page, and the Chinese tags index,
    show each tag's Chinese name (tfdist_kb/site/i18n.py TAG_NAMES_ZH), an English page the slug."""
    import re

    from tfdist_kb.site import i18n

    assert set(i18n.TAG_NAMES_ZH) == set(registry.TAGS)
    chip = re.compile(r'<a href="[^"]*tags/#tag:[^"]*" class="md-tag">([^<]+)')
    for entry in registry.load().values():
        tags = registry.front_matter(entry.page)[0]["tags"]
        for lang, prefix in (("en", ""), ("zh", "zh/")):
            shown = chip.findall((site / f"{prefix}e" / entry.id / "index.html").read_text(encoding="utf-8"))
            assert sorted(t.strip() for t in shown) == sorted(i18n.tag_name(t, lang) for t in tags), (entry.id, lang)
    listed = set(re.findall(r'id="tag:([^"]+)"', (site / "zh" / "tags" / "index.html").read_text(encoding="utf-8")))
    used = {t for e in registry.load().values() for t in registry.front_matter(e.page)[0]["tags"]}
    assert listed == {i18n.tag_name(t, "zh") for t in used}


def _width(text: str) -> int:
    """Columns a title takes in a sidebar: a CJK character is as wide as two Latin ones."""
    return sum(2 if "\u2e80" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef" else 1 for c in text)


def test_navigation_names_each_entry_by_id_and_short_title(site):
    """The sidebar lists `TFDnnn · short title` in the page's language (front matter `short`), short
    enough to scan (at most 56 columns, as the longest fits two sidebar lines); the page keeps the full
    question as its heading and its browser title."""
    import html as html_lib
    import re
    problems = []
    for entry in registry.load().values():
        if entry.status != "published":
            continue
        for prefix, page in (("", entry.page), ("zh/", entry.page.with_name(f"{entry.id}.zh.md"))):
            meta, _ = registry.front_matter(page)
            short = meta.get("short") or ""
            built = (site / prefix / "e" / entry.id / "index.html").read_text(encoding="utf-8")
            links = [html_lib.unescape(" ".join(m.split())) for m in re.findall(
                r'<a href="[^"]*" class="md-nav__link[^"]*">\s*<span class="md-ellipsis">(.*?)</span>', built, re.S)]
            if f"{entry.id} · {short}" not in links or not short:
                problems.append(f"{prefix}e/{entry.id}: no navigation link {entry.id} · {short!r}")
            if _width(short) > 56:
                problems.append(f"{prefix}e/{entry.id}: short title {short!r} is {_width(short)} columns (56 at most)")
            title = html_lib.unescape(re.search(r"<title>(.*?)</title>", built, re.S).group(1))
            h1 = re.search(r"<h1[^>]*>(.*?)</h1>", built, re.S).group(1)
            question = meta["title"].replace("`", "")
            heading = html_lib.unescape(re.sub(r"<[^>]+>", "", h1)).replace("¶", "").strip()
            if not title.replace("`", "").startswith(question) or heading != question:
                problems.append(f"{prefix}e/{entry.id}: the page's title or heading is not its full question")
    assert not problems, "\n".join(problems)


def test_notebooks_are_rendered_and_linked(site):
    for entry in registry.load().values():
        if entry.status == "published" and entry.snippets:
            assert (site / "notebooks" / entry.id / "index.html").exists()
            assert f'href="../../notebooks/{entry.id}/"' in (site / "e" / entry.id / "index.html").read_text()


def test_missing_snippet_fails_the_build(tmp_path):
    """check_paths: a --8<-- target that does not exist is a build error, not an empty block."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('# x\n\n```python title="x"\n--8<-- "TFD999/nope.py:example"\n```\n')
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [%s]\n"
                      "      check_paths: true\n" % (ROOT / "snippets"))
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                            "--site-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert build.returncode != 0 and "nope.py" in build.stderr


def test_errors_json_is_published_and_agrees_with_the_site_and_the_evidence(site):
    """The machine API: schema, one object per registry entry, URLs that exist on this site, valid
    signatures, and every raising run of the evidence listed under its own entry."""
    import json
    import re

    from tfdist_kb.site import errors
    from tfdist_kb.proof import evidence

    index = json.loads((site / "errors.json").read_text())
    assert index["schema"] == errors.SCHEMA and index["base_url"] == errors.base_url()
    assert [e["id"] for e in index["entries"]] == list(registry.load())
    raised = {(r["snippet"].removeprefix("snippets/"), r["env"]) for r in evidence.load().values()
              if r["outcome"] == "raised"}
    listed = set()
    for entry in index["entries"]:
        assert entry["url"] == index["base_url"] + entry["path"]
        assert (site / entry["path"] / "index.html").exists(), f"{entry['id']}: {entry['path']} is not on the site"
        if entry["status"] != "published":
            continue
        assert entry["fix"] and "\n" not in entry["fix"] and entry["signatures"] and entry["tags"]
        for pattern in entry["signatures"]:
            re.compile(pattern, re.IGNORECASE)
        for run in entry["reproduced"]:
            assert run["snippet"].startswith(entry["id"] + "/")
            listed.add((run["snippet"], run["env"]))
    assert listed == raised


def test_error_index_page_lists_every_entry_and_message(site):
    import html as html_lib

    page = html_lib.unescape((site / "errors" / "index.html").read_text())
    for entry in registry.load().values():
        if entry.status == "published":
            assert entry.id in page
    assert "Trying to create optimizer slot variable under the scope" in page


def test_no_placeholder_host_anywhere(site):
    """Every link points at this site's configured address or at a real public page."""
    for path in site.rglob("*"):  # (Material's own script bundle names api.github.com for its repository widget)
        if path.suffix in (".html", ".json", ".xml") and path.is_file():
            text = path.read_text(errors="replace")
            for host in ("readthedocs.io", "github.com/tfdist-kb", "api.github.com", "example.com"):
                assert host not in text, f"{path.relative_to(site)} mentions {host}"
            assert 'data-md-component="source"' not in text, f"{path.relative_to(site)} has a repository widget"


def test_code_lines_keep_their_text_with_fewer_elements(site):
    """tfdist_kb/site/codelines.py: Pygments' name and whitespace spans go (drawn as the code's own
    text, they were a quarter of an entry page's elements), a non-blank line of at most SHORT
    characters loses its own span, every longer line and every blank line keeps one, and the text
    of the block is what Pygments wrote. And no entry page the site fixture built keeps such a span."""
    import html
    import re

    import markdown

    from tfdist_kb.site import codelines

    source = ("import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\n"
              "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])\n"
              "\n    x = 1\n")
    raw = markdown.markdown(f"```python\n{source}```", extensions=["pymdownx.superfences", "pymdownx.highlight"],
                            extension_configs={"pymdownx.highlight": {"line_spans": "__span"}})
    marked = codelines.indent(raw)
    text = lambda fragment: html.unescape(re.sub(r"<[^>]+>", "", fragment))  # noqa: E731
    assert text(marked) == text(raw) and source.rstrip("\n") in text(marked)
    assert re.search(r'<span class="[nw]">', raw) and not re.search(r'<span class="[nw]">', marked)
    # lines 1-7: import (short), blank, strategy = ... (long), with ... (short), model = ... (long), blank, x = 1
    assert re.findall(r'<span id="__span-0-(\d+)"', marked) == ["2", "3", "5", "6"], marked
    for entry in registry.load().values():
        page = (site / "e" / entry.id / "index.html").read_text(encoding="utf-8")
        assert not re.search(r'<span class="[nw]">', page), f"{entry.id}: a name or whitespace span is left"
