"""Coverage as a product (tfdist_kb/site/coverage.py): the figures computed from the real-error corpus
(tests/corpus/real_errors.jsonl) with the matcher, as `tfdist coverage` prints them and as the coverage
page (docs/coverage.md, both languages) shows them once built."""
import html
import json
import re
import subprocess
import sys

import pytest

from tfdist import matcher
from tfdist_kb.site import coverage, errors

CORPUS = [json.loads(line) for line in coverage.CORPUS.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def computed():
    return coverage.compute()


def test_every_paste_is_counted_once_in_its_family(computed):
    assert computed.pastes == len(CORPUS) >= 200
    by_family = {}
    for row in CORPUS:
        by_family.setdefault(row["family"], []).append(row)
    assert {f.name: f.pastes for f in computed.families} == {name: len(rows) for name, rows in by_family.items()}
    for f in computed.families:
        rows = by_family[f.name]
        assert f.tpu == sum(r["needs"] == "tpu" for r in rows)
        assert f.entries == sorted({r["label"] for r in rows} - {"uncovered"})
        assert f.uncovered == sum(r["label"] == "uncovered" and r["needs"] != "tpu" for r in rows)
        assert f.labelled == sum(r["label"] != "uncovered" and r["needs"] != "tpu" for r in rows)
    assert computed.tpu == sum(r["needs"] == "tpu" for r in CORPUS)
    assert computed.counted == computed.pastes - computed.tpu


def test_reaching_is_what_the_matcher_answers(computed):
    """A non-TPU labelled paste reaches its entry exactly when `tfdist explain`'s matcher, on the index
    the site publishes, names that entry first; an uncovered paste with any answer is a false link."""
    index = errors.build()
    reached, false_links = 0, []
    for row in CORPUS:
        found = matcher.match(row["error_text"], index)
        if row["label"] == "uncovered":
            if found:
                false_links.append((row["source"], found[0]["id"]))
        elif row["needs"] != "tpu" and found and found[0]["id"] == row["label"]:
            reached += 1
    assert computed.reached == reached == sum(f.reached for f in computed.families)
    assert computed.false_links == false_links
    assert computed.reached + len(computed.misses) == computed.labelled
    assert computed.share == round(100 * computed.reached / computed.counted)


def test_latency_is_measured_on_every_paste(computed):
    figures = coverage.latency(computed)
    assert figures["pastes"] == len(CORPUS)
    assert 0 < figures["median_ms"] <= figures["max_ms"] <= figures["total_ms"]


def test_tfdist_coverage_prints_the_table(computed):
    done = subprocess.run([sys.executable, "-m", "tfdist_kb.commands.cli", "coverage"], capture_output=True, text=True)
    assert done.stdout.startswith(f"{computed.pastes} real error pastes in {len(computed.families)} families; "
                                  f"{computed.tpu} need TPU hardware"), done.stdout[:300] + done.stderr[-300:]
    assert f"of the other {computed.counted}, {computed.reached} reach their entry first ({computed.share}%)" in done.stdout
    for f in computed.families:
        line = next(line for line in done.stdout.splitlines() if line.startswith(f.name + " "))
        assert line.split()[1:3] == [str(f.pastes), str(f.tpu)], line
        if f.counted:
            assert f" {f.reached}/{f.counted} " in line, line
        for entry in f.entries:
            assert entry in line, line
    assert done.returncode == (1 if computed.false_links or computed.misses else 0)


def test_an_unreadable_corpus_is_one_line(tmp_path):
    missing = tmp_path / "nothing.jsonl"
    with pytest.raises(coverage.CoverageError, match="cannot read the real-error corpus") as caught:
        coverage.compute(corpus=missing)
    assert "\n" not in str(caught.value)
    done = subprocess.run([sys.executable, "-c", "import sys; from tfdist_kb.commands import cli; "
                           "from tfdist_kb.site import coverage; from pathlib import Path; "
                           f"coverage.CORPUS = Path({str(missing)!r}); "
                           "sys.exit(cli.main(['coverage']))"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("tfdist: coverage: cannot read the real-error corpus") and "Traceback" not in done.stderr


# ---------------------------------------------------------------- the rendered page

FIGURE = re.compile(r'<span data-tfd-coverage="([^"]+)">([^<]*)</span>')


def _figures(page) -> dict:
    found = {}
    for name, value in FIGURE.findall(page.read_text()):
        name = html.unescape(name)
        assert found.get(name, value) == value, f"{name}: {found[name]} and {value} on one page"
        found[name] = value
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_the_computed_figures(site, computed, lang):
    page = site / ("coverage" if lang == "en" else "zh/coverage") / "index.html"
    shown = _figures(page)
    expected = {"pastes": computed.pastes, "families": len(computed.families), "tpu": computed.tpu,
                "counted": computed.counted, "reached": computed.reached, "share": computed.share,
                "false-links": len(computed.false_links)}
    for f in computed.families:
        if f.entries:
            expected.update({f"{f.name}:pastes": f.pastes, f"{f.name}:tpu": f.tpu})
            if f.counted:
                expected.update({f"{f.name}:reached": f.reached, f"{f.name}:counted": f.counted,
                                 f"{f.name}:share": coverage.percent(f.reached, f.counted)})
        if f.uncovered or (f.tpu and not f.entries):
            expected[f"{f.name}:uncovered"] = f.uncovered
            if not f.entries:  # its TPU count is shown here, not in the table of answered families
                expected[f"{f.name}:tpu"] = f.tpu
    assert shown == {k: str(v) for k, v in expected.items()}
    text = html.unescape(page.read_text())
    for f in computed.families:
        assert f"({f.name})" in re.sub(r"</?code>", "", text), f.name
        for entry in f.entries:
            assert f'href="../e/{entry}/"' in text, (f.name, entry)  # the entry in the page's language


def test_the_coverage_page_is_in_the_navigation_after_the_error_index(site):
    home = (site / "index.html").read_text()
    assert home.index('href="errors/"') < home.index('href="coverage/"') < home.index('href="doctor/"')
