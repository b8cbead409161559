"""Pages: registry and front matter agree; each page passes the audit of tfdist_kb.site.pages (no skip
markers; every fenced block executed, a checked source quote, or visibly marked as not run; every
snippet included and shown with its outcome). Versions are checked on the rendered site, and each
code block's kind too: tests/test_rendered_audit.py."""
import pytest

from tfdist_kb.site import i18n, notebooks, pages, registry
from tfdist_kb.proof import runner

DOCS = registry.DOCS
PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_page_audit(page):
    skipped = []
    problems = pages.audit(page.read_text(), skipped=skipped)
    assert not problems, f"{page.relative_to(DOCS)}:\n" + "\n".join(problems)
    if skipped:  # quotes of a release that an environment pins but that is not built here
        pytest.skip("; ".join(skipped))


def test_registry_and_pages_agree():
    entries = registry.load()
    problems = []
    for page in sorted((DOCS / "e").glob("*.md")):
        meta, _ = registry.front_matter(page)
        stem, _, lang = page.name[:-len(".md")].partition(".")  # TFD001.zh.md: the Chinese page of TFD001
        entry = entries.get(stem)
        if lang and lang not in i18n.LANGUAGES:
            problems.append(f"{page.name}: {lang!r} is not one of the site's languages {i18n.LANGUAGES}")
        if entry is None:
            problems.append(f"{page.name}: not in docs/registry.toml")
            continue
        if meta.get("id") != stem:
            problems.append(f"{page.name}: front matter id {meta.get('id')!r} is not {stem}")
        if not lang and meta.get("title") != entry.title:
            problems.append(f"{page.name}: title differs from the registry's")
        if lang and (not meta.get("title") or meta.get("tags") != entries_tags(stem)):
            problems.append(f"{page.name}: needs its own title and the same tags as {stem}.md")
        bad_tags = set(meta.get("tags") or []) - set(registry.TAGS)
        if not meta.get("tags") or bad_tags:
            problems.append(f"{page.name}: tags {sorted(bad_tags) or 'missing'} are not in the vocabulary")
    for entry in entries.values():
        if entry.status == "published" and not entry.page.exists():
            problems.append(f"{entry.id}: published in the registry but {entry.page} is missing")
    assert not problems, "\n".join(problems)


def entries_tags(entry_id):
    return registry.front_matter(DOCS / "e" / f"{entry_id}.md")[0].get("tags")


def test_every_page_is_in_every_language():
    """Readers of each language get the whole site: every English page has its Chinese page and
    the other way round (the build would otherwise fall back to English without a word)."""
    english = {p.relative_to(DOCS).as_posix() for p in PAGES if p.name.count(".") == 1}
    problems = []
    for lang in i18n.LANGUAGES:
        if lang == i18n.DEFAULT:
            continue
        translated = {p.relative_to(DOCS).as_posix().replace(f".{lang}.md", ".md")
                      for p in PAGES if p.name.endswith(f".{lang}.md")}
        problems += [f"{page}: no {lang} page" for page in sorted(english - translated)]
        problems += [f"{page[:-3]}.{lang}.md: no English page" for page in sorted(translated - english)]
    assert not problems, "\n".join(problems)


def test_every_snippet_has_its_page():
    """The page audit checks that a page shows its snippets; here: that the page exists, and that
    each snippet has the example section a page and a notebook show."""
    problems = []
    for path in runner.snippet_files():
        page = DOCS / "e" / f"{path.parent.name}.md"
        if not page.exists():
            problems.append(f"{path.relative_to(runner.ROOT)} has no page {page.relative_to(runner.ROOT)}")
        try:
            notebooks.example(path)
        except ValueError as error:
            problems.append(str(error))
    assert not problems, "\n".join(problems)
