"""The outcome tables on the built site (both languages): every environment of every record of an
entry's snippets appears in its entry's table, exactly once per snippet, in the row of the outcome
it had; the evidence page's table holds every record; each message sits behind a <details>."""
import html as html_lib
import re

import pytest

from tfdist_kb.proof import envs, evidence
from tfdist_kb.site import i18n, registry

ENTRIES = [e for e in registry.load().values() if e.status == "published" and e.snippets]
KIND = {"passed": ("pass", "wrong"), "raised": ("raised",), "not-applicable": ("na",), "timed-out": ("hangs",)}


def _tables(page: str) -> dict[str, list[tuple[str, str, list[str]]]]:
    """snippet -> [(row kind, outcome cell, environments)] from every outcome table of a page."""
    found: dict[str, list] = {}
    for table in re.findall(r'<div class="tfd-outcomes">(.*?)</div>', page, re.DOTALL):
        for group in re.findall(r"<tbody>(.*?)</tbody>", table, re.DOTALL):
            snippet = html_lib.unescape(re.search(r'<th colspan="2" scope="rowgroup"><code>(.*?)</code>', group).group(1))
            rows = re.findall(r'<tr class="tfd-row-(\w+)"><td>(.*?)</td><td>(.*?)</td></tr>', group, re.DOTALL)
            found.setdefault(snippet, []).extend(
                (kind, cell, re.findall(r"<code[^>]*>([^<]+)</code>", chips)) for kind, cell, chips in rows)
    return found


def _check(tables: dict, records: list[dict], where: str) -> None:
    for record in records:
        snippet = record["snippet"].removeprefix("snippets/")
        rows = tables.get(snippet)
        assert rows, f"{where}: no table rows for {snippet}"
        having = [(kind, cell) for kind, cell, names in rows if record["env"] in names]
        assert len(having) == 1, f"{where}: {snippet} lists {record['env']} {len(having)} times"
        kind, cell = having[0]
        assert kind in KIND[record["outcome"]], f"{where}: {snippet} on {record['env']} is {record['outcome']}, shown as {kind}"
        if record["outcome"] == "raised":
            message = html_lib.unescape(re.sub(r"<[^>]+>", "", cell))
            assert cell.startswith('<details class="tfd-why">') and record["exception"] in message, cell
    for snippet, rows in tables.items():  # and nothing else: every environment is listed once
        names = [n for _, _, ns in rows for n in ns]
        assert sorted(names) == sorted(e.name for e in envs.load()), f"{where}: {snippet} lists {names}"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_every_environment_of_every_record_is_in_its_entry_table(site, entry, lang):
    prefix = "" if lang == i18n.DEFAULT else f"{lang}/"
    page = (site / prefix / "e" / entry.id / "index.html").read_text()
    records = [r for (snippet, _), r in evidence.load().items() if snippet.startswith(f"snippets/{entry.id}/")]
    tables = _tables(page)
    assert set(tables) == {f"{entry.id}/{p.name}" for p in entry.snippets}
    _check(tables, records, f"{prefix}e/{entry.id}")
    assert 'title="' not in "".join(re.findall(r'<div class="tfd-outcomes">.*?</div>', page, re.DOTALL))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_evidence_page_table_holds_every_record(site, lang):
    prefix = "" if lang == i18n.DEFAULT else f"{lang}/"
    page = (site / prefix / "evidence" / "index.html").read_text()
    _check(_tables(page), list(evidence.load().values()), f"{prefix}evidence")


def test_table_words_follow_the_page_language(site):
    """The column names and outcome words come from tfdist_kb/site/i18n.py in the page's language."""
    for lang in i18n.LANGUAGES:
        prefix = "" if lang == i18n.DEFAULT else f"{lang}/"
        page = (site / prefix / "e" / ENTRIES[0].id / "index.html").read_text()
        i18n.set_language(lang)
        try:
            for key in ("outcome_col", "environments_col", "pass"):
                assert f">{i18n.t(key)}<" in page, (lang, key)
        finally:
            i18n.set_language(i18n.DEFAULT)
