"""The form of the real-error pastes gathered for issue 20 (tests/corpus/incoming.jsonl): every line
has the fields the corpus README names, a label that is a registered entry or `uncovered` with its
reason, and neither its source nor its text repeats one of either corpus file."""
import json
import re
from pathlib import Path

from tfdist_kb.site import registry

CORPUS = Path(__file__).resolve().parent / "corpus"
FIELDS = ("source", "tf_version", "keras_version", "family", "error_text", "resolution", "label", "why")


def _lines(name):
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines() if line.strip()]


def test_every_incoming_paste_has_its_fields_and_a_label():
    rows = _lines("incoming.jsonl")
    entries = set(registry.load())
    assert len(rows) >= 150
    for row in rows:
        assert tuple(row) == FIELDS, row.get("source")
        assert re.fullmatch(r"[\w.-]+/[\w.-]+#\d+|https://\S+", row["source"]), row["source"]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", row["family"]), row["family"]
        assert row["error_text"].strip() and row["resolution"].strip() and row["why"].strip(), row["source"]
        assert row["label"] == "uncovered" or row["label"] in entries, (row["source"], row["label"])


def test_no_source_or_text_is_gathered_twice():
    rows = _lines("real_errors.jsonl") + _lines("incoming.jsonl")
    seen_sources, seen_texts = {}, {}
    for row in _lines("incoming.jsonl"):
        assert row["source"] not in seen_sources, row["source"]
        seen_sources[row["source"]] = row
    old = {row["source"] for row in _lines("real_errors.jsonl")}
    assert not old & set(seen_sources), old & set(seen_sources)
    for row in rows:
        text = " ".join(row["error_text"].split())
        assert text not in seen_texts or seen_texts[text] == row["source"], (row["source"], seen_texts.get(text))
        seen_texts[text] = row["source"]
