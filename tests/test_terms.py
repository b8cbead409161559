"""Search terms: the words a reader searches an entry by (front matter `terms`, in each language),
matched by the one matcher (tfdist.matcher.match_terms) for `tfdist explain` and the site's search box.

Every entry declares terms in both languages; each term puts its entry first; a paste is never
matched by terms (only a short phrase with no error, traceback or log marker is), so no real paste
gets an entry through a term; bad declarations stop the build with one line. The browser's answers
for terms and for questions in readers' own words are checked in tests/test_browser.py.
"""
from __future__ import annotations

import json

import pytest
from tfdist import matcher

from tfdist_kb.site import errors, i18n, registry

REAL_ERRORS = registry.ROOT / "tests" / "corpus" / "real_errors.jsonl"


@pytest.fixture(scope="module")
def index():
    return errors.build()


def _published():
    return [e for e in registry.load().values() if e.status == "published"]


def test_every_entry_declares_terms_in_each_language():
    for entry in _published():
        for lang in i18n.LANGUAGES:
            page = entry.page if lang == i18n.DEFAULT else entry.page.with_name(f"{entry.id}.{lang}.md")
            terms = registry.front_matter(page)[0].get("terms")
            assert isinstance(terms, list) and terms, f"{page.name}: no `terms` (the words readers search it by)"


def test_each_term_puts_its_entry_first(index):
    checked, problems = 0, []
    for item in index["entries"]:
        for term in item.get("terms", []):
            checked += 1
            found = [r["id"] for r in matcher.match(term, index)]
            if not found or found[0] != item["id"]:
                problems.append(f"{term!r}: {item['id']} expected first, got {found[:3]}")
    assert checked >= 2 * len(_published())
    assert not problems, "\n".join(problems)


def test_terms_answer_phrases_not_pastes(index):
    assert matcher.match_terms("how do I use slot variables with two GPUs", index)
    assert not matcher.match_terms("ValueError: slot variables", index), "an error marker makes it a paste"
    assert not matcher.match_terms("slot variables " + "x" * matcher.TERM_TEXT, index), "a long text is a paste"
    assert not matcher.match_terms("emacs", index), "a Latin term matches whole words only"
    wrong = []
    for line in REAL_ERRORS.read_text(encoding="utf-8").splitlines():
        paste = json.loads(line)
        ids = [r["id"] for r in matcher.match_terms(paste["error_text"], index)]
        if ids and ids[0] != paste["label"]:
            wrong.append(f"{paste['source']} ({paste['label']}): terms give {ids}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("terms, problem", [
    ("slot variables", "must be a list"),
    (["x" * 60], "not a short phrase"),
    (["two\n lines"], "not a short phrase"),
])
def test_a_bad_declaration_is_one_line(tmp_path, monkeypatch, terms, problem):
    entry = _published()[0]
    page = tmp_path / entry.page.name
    text = entry.page.read_text(encoding="utf-8")
    page.write_text(text.replace("\nterms:", f"\nterms: {json.dumps(terms)}\nold_terms:", 1), encoding="utf-8")
    fake = type(entry)(id=entry.id, title=entry.title, status=entry.status)
    monkeypatch.setattr(type(entry), "page", property(lambda self: page))
    with pytest.raises(errors.DeclarationError) as caught:
        errors.search_terms(fake)
    assert problem in str(caught.value) and "\n" not in str(caught.value)
