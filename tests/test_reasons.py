"""Why a snippet did not run somewhere, in the reader's language (tfdist_kb/site/reasons.py).

Every reason a snippet declares (not-applicable, restart-kernel) has its Chinese text in the entry's
Chinese page; the runner's bisection reason is written from its parts; a missing text stops with
one line naming the page to fix. On the built site, the Chinese pages and notebooks show every
reason in Chinese and none of the English ones; the English pages show them as declared.
"""
from __future__ import annotations

import html
import json
import re

import pytest

from tfdist_kb.proof import expect, runner
from tfdist_kb.site import reasons, registry

CJK = re.compile(r"[\u4e00-\u9fff]")
WHY = re.compile(r'<details class="tfd-why"><summary><span class="tfd-na">[^<]*</span></summary>(?P<body>.*?)</details>', re.S)
TAG = re.compile(r"<[^>]+>")


def declared() -> dict[str, set[str]]:
    """entry ID -> the reasons its snippets declare (the runner's bisection reason aside)."""
    found: dict[str, set[str]] = {}
    for entry in registry.load().values():
        for path in entry.snippets:
            for expectation in runner.expectations(path).values():
                if expectation.kind == "not-applicable" and not reasons.BISECTION.match(expectation.reason):
                    found.setdefault(entry.id, set()).add(expectation.reason)
            if expect.restart_kernel(path):
                found.setdefault(entry.id, set()).add(expect.restart_kernel(path))
    return found


def test_every_declared_reason_has_its_chinese_text():
    table = declared()
    assert sum(map(len, table.values())) > 30
    for entry_id, texts in table.items():
        for text in texts:
            assert reasons.localized(text, entry_id, "en") == text
            zh = reasons.localized(text, entry_id, "zh")
            assert CJK.search(zh) and zh != text, (entry_id, text)


def test_the_bisection_reason_is_written_from_its_parts():
    text = "tf2.0.4 is a bisection environment; it runs only TFD005/estimator_*, TFD015/x.py"
    zh = reasons.localized(text, "TFD001", "zh")
    assert CJK.search(zh) and "tf2.0.4" in zh and "TFD005/estimator_*, TFD015/x.py" in zh


def test_a_reason_without_its_chinese_text_is_one_clear_line():
    with pytest.raises(reasons.MissingTranslation) as caught:
        reasons.localized("a reason nobody translated", "TFD001", "zh")
    message = str(caught.value)
    assert "\n" not in message and "docs/e/TFD001.zh.md" in message and "reasons" in message


def _shown(page_html: str) -> list[str]:
    return [" ".join(html.unescape(TAG.sub(" ", m["body"])).split()) for m in WHY.finditer(page_html)]


def test_the_chinese_pages_and_notebooks_show_every_reason_in_chinese(site):
    english = {" ".join(text.split()) for texts in declared().values() for text in texts}
    shown = 0
    for entry in registry.load().values():
        zh = (site / "zh" / "e" / entry.id / "index.html").read_text(encoding="utf-8")
        en = (site / "e" / entry.id / "index.html").read_text(encoding="utf-8")
        for text in _shown(zh):
            shown += 1
            assert CJK.search(text), f"{entry.id} (zh): {text[:120]}"
        assert len(_shown(zh)) == len(_shown(en)), entry.id
        notebook = site / "zh" / "notebooks" / entry.id / f"{entry.id}.ipynb"
        cells = (json.loads(notebook.read_text(encoding="utf-8"))["cells"] if notebook.exists() else [])
        words = " ".join(html.unescape(TAG.sub(" ", zh)).split()) + " " + " ".join(
            " ".join(TAG.sub(" ", "".join(c["source"])).split()) for c in cells if c["cell_type"] == "markdown")
        left = [text for text in english if text in words]
        assert not left, f"{entry.id}: English reasons on its Chinese page or notebook: {left[:2]}"
    assert shown > 30, "the Chinese pages show their reasons"
