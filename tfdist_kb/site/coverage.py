"""Coverage as a product: which real error pastes this knowledge base answers.

One job: read the real-error corpus (tests/corpus/real_errors.jsonl, its family vocabulary
tests/corpus/families.toml) and ask the matcher of `tfdist explain` (tfdist.matcher, on the error
index the site publishes) what it answers to each paste. A paste *reaches* its entry when it is
labelled with an entry and the matcher ranks that entry first; an `uncovered` paste that gets any
entry is a *false link*. Pastes that need TPU hardware (`needs = "tpu"`) are counted apart: no
environment here can run them. The coverage page (docs/coverage.md, the `coverage_table` macro),
`tfdist coverage` (`make coverage`) and `tfdist bench` (the matcher's latency on the corpus) all
use this module.
"""
from __future__ import annotations

import json
import statistics
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tfdist import matcher

from . import errors, registry

CORPUS = registry.ROOT / "tests" / "corpus" / "real_errors.jsonl"
FAMILIES = registry.ROOT / "tests" / "corpus" / "families.toml"
UNCOVERED = "uncovered"


class CoverageError(Exception):
    """The corpus or its family vocabulary cannot be read: one line naming the file."""


@dataclass
class Family:
    name: str
    title: dict  # language -> the family's title
    why: dict  # language -> why its uncovered pastes have no entry ({} if the vocabulary gives none)
    pastes: int = 0
    tpu: int = 0  # pastes that need TPU hardware
    entries: list = field(default_factory=list)  # the entries its pastes are labelled with, in ID order
    labelled: int = 0  # non-TPU pastes labelled with an entry
    reached: int = 0  # of those, the ones whose entry the matcher ranks first
    uncovered: int = 0  # non-TPU pastes labelled uncovered
    false_links: int = 0  # uncovered pastes (TPU ones too) the matcher links to an entry

    @property
    def counted(self) -> int:
        """The pastes that count for coverage: those that need no TPU hardware."""
        return self.pastes - self.tpu


@dataclass
class Coverage:
    families: list  # [Family], most pastes first, then by name
    pastes: int
    tpu: int
    counted: int  # pastes that need no TPU hardware
    reached: int  # of those, the ones that reach their entry first
    labelled: int
    false_links: list  # [(source, the entry it got)]
    misses: list  # [(source, label, the matcher's first entry or None)]
    seconds: list = field(default_factory=list)  # the matcher's time for each paste

    @property
    def share(self) -> int:
        """The overall share of the non-TPU pastes that reach their entry first, in whole percent."""
        return percent(self.reached, self.counted)


def percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


def _read_corpus(path: Path) -> list[dict]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError) as error:
        raise CoverageError(f"cannot read the real-error corpus {path}: {error}") from None


def _read_families(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CoverageError(f"cannot read the family vocabulary {path}: {error}") from None


def compute(index: dict | None = None, corpus: Path | None = None, families: Path | None = None) -> Coverage:
    """Every paste of the corpus (default: CORPUS, its vocabulary FAMILIES) through the matcher, on
    `index` (default: the error index built from the pages, as the site publishes it), counted by family."""
    rows = _read_corpus(corpus or CORPUS)
    vocabulary = _read_families(families or FAMILIES)
    index = errors.build() if index is None else index
    by_name: dict[str, Family] = {}
    false_links, misses, seconds = [], [], []
    for row in rows:
        name = row["family"]
        if name not in by_name:
            words = vocabulary.get(name, {})
            by_name[name] = Family(
                name, {"en": words.get("title", name), "zh": words.get("title_zh", words.get("title", name))},
                {"en": words["uncovered"], "zh": words.get("uncovered_zh", words["uncovered"])}
                if "uncovered" in words else {})
        family = by_name[name]
        started = time.perf_counter()
        found = matcher.match(row["error_text"], index)
        seconds.append(time.perf_counter() - started)
        first = found[0]["id"] if found else None
        tpu = row.get("needs") == "tpu"
        family.pastes += 1
        family.tpu += tpu
        label = row["label"]
        if label == UNCOVERED:
            family.uncovered += not tpu
            if first:
                family.false_links += 1
                false_links.append((row["source"], first))
            continue
        if label not in family.entries:
            family.entries = sorted(family.entries + [label])
        if tpu:
            continue
        family.labelled += 1
        if first == label:
            family.reached += 1
        else:
            misses.append((row["source"], label, first))
    ordered = sorted(by_name.values(), key=lambda f: (-f.pastes, f.name))
    return Coverage(families=ordered, pastes=len(rows), tpu=sum(f.tpu for f in ordered),
                    counted=sum(f.counted for f in ordered), reached=sum(f.reached for f in ordered),
                    labelled=sum(f.labelled for f in ordered), false_links=false_links, misses=misses,
                    seconds=seconds)


def latency(coverage: Coverage) -> dict:
    """The matcher's time on the corpus, in milliseconds: total, per paste median and max."""
    values = coverage.seconds or [0.0]
    return {"pastes": len(coverage.seconds), "total_ms": sum(values) * 1000,
            "median_ms": statistics.median(values) * 1000, "max_ms": max(values) * 1000}


def table(coverage: Coverage) -> str:
    """The coverage as plain text: what `tfdist coverage` prints (the page shows the same figures)."""
    lines = [f"{coverage.pastes} real error pastes in {len(coverage.families)} families; "
             f"{coverage.tpu} need TPU hardware (counted apart); of the other {coverage.counted}, "
             f"{coverage.reached} reach their entry first ({coverage.share}%); "
             f"false links: {len(coverage.false_links)}",
             "",
             f"{'family':28} {'pastes':>6} {'tpu':>4} {'reach':>9} {'share':>6}  entries / why uncovered"]
    for f in coverage.families:
        share = f"{percent(f.reached, f.counted)}%" if f.counted else "-"
        reach = f"{f.reached}/{f.counted}" if f.counted else "-"
        said = ", ".join(f.entries) or "-"
        if f.uncovered:
            said += f"; {f.uncovered} uncovered: {f.why.get('en', 'no reason written in families.toml')}"
        lines.append(f"{f.name:28} {f.pastes:>6} {f.tpu:>4} {reach:>9} {share:>6}  {said}")
    for source, entry in coverage.false_links:
        lines.append(f"false link: {source} (uncovered) -> {entry}")
    for source, label, first in coverage.misses:
        lines.append(f"miss: {source} (labelled {label}) -> {first or 'nothing'}")
    return "\n".join(lines)
