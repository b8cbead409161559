"""The form of the real-error corpus (tests/corpus/real_errors.jsonl, see its README): every line has
the fields the README names in that order, a family of the vocabulary (tests/corpus/families.toml),
a label that is a registered entry or `uncovered` with its reason, `needs` saying which pastes need
hardware this knowledge base does not have, and no paste repeats another's source or text."""
import json
import re
import tomllib
from pathlib import Path

from tfdist_kb.site import registry

CORPUS = Path(__file__).resolve().parent / "corpus"
FIELDS = ("source", "tf_version", "keras_version", "family", "error_text", "resolution", "label", "why",
          "tied_with", "needs")
NEEDS = ("", "tpu")


def _lines(name="real_errors.jsonl"):
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines() if line.strip()]


def test_the_corpus_is_one_file():
    assert sorted(p.name for p in CORPUS.glob("*.jsonl")) == ["real_errors.jsonl"]


def test_every_paste_has_its_fields_and_a_label():
    rows = _lines()
    entries = set(registry.load())
    families = tomllib.loads((CORPUS / "families.toml").read_text())
    assert len(rows) >= 200
    for row in rows:
        assert tuple(row) == FIELDS, row.get("source")
        assert re.fullmatch(r"[\w.-]+/[\w.-]+#\d+|https://\S+", row["source"]), row["source"]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", row["family"]), row["family"]
        assert row["family"] in families, f"{row['source']}: family {row['family']} is not in families.toml"
        assert row["error_text"].strip() and row["resolution"].strip() and row["why"].strip(), row["source"]
        assert row["label"] == "uncovered" or row["label"] in entries, (row["source"], row["label"])
        assert isinstance(row["tied_with"], list) and row["label"] not in row["tied_with"], row["source"]
        assert not row["tied_with"] or row["label"] != "uncovered", row["source"]
        assert set(row["tied_with"]) <= entries, row["source"]
        assert row["needs"] in NEEDS, (row["source"], row["needs"])
        assert row["family"] != "tpu-hardware" or row["needs"] == "tpu", row["source"]


def test_every_family_is_used_and_described():
    families = tomllib.loads((CORPUS / "families.toml").read_text())
    used = {row["family"] for row in _lines()}
    assert set(families) == used, (set(families) - used, used - set(families))
    for name, family in families.items():
        assert family["title"].strip() and family["title_zh"].strip(), name
        assert ("uncovered" in family) == ("uncovered_zh" in family), name
    uncovered = {row["family"] for row in _lines() if row["label"] == "uncovered"}
    assert all("uncovered" in families[name] for name in uncovered), [
        name for name in uncovered if "uncovered" not in families[name]]


def test_no_source_or_text_is_gathered_twice():
    seen_sources, seen_texts = {}, {}
    for row in _lines():
        assert row["source"] not in seen_sources, row["source"]
        seen_sources[row["source"]] = row
        text = " ".join(row["error_text"].split())
        assert text not in seen_texts, (row["source"], seen_texts.get(text))
        seen_texts[text] = row["source"]
