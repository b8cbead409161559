"""Pages: registry and front matter agree; each page passes the audit of tfdist_kb.pages (no skip
markers; every fenced block executed, a checked source quote, or visibly marked as not run; every
snippet included and shown with its outcome; no version typed in prose)."""
import pytest

from tfdist_kb import notebooks, pages, registry, runner

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
        entry = entries.get(page.stem)
        if entry is None:
            problems.append(f"{page.name}: not in docs/registry.toml")
            continue
        if meta.get("id") != page.stem:
            problems.append(f"{page.name}: front matter id {meta.get('id')!r} is not {page.stem}")
        if meta.get("title") != entry.title:
            problems.append(f"{page.name}: title differs from the registry's")
        bad_tags = set(meta.get("tags") or []) - set(registry.TAGS)
        if not meta.get("tags") or bad_tags:
            problems.append(f"{page.name}: tags {sorted(bad_tags) or 'missing'} are not in the vocabulary")
    for entry in entries.values():
        if entry.status == "published" and not entry.page.exists():
            problems.append(f"{entry.id}: published in the registry but {entry.page} is missing")
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
