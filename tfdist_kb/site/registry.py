"""The entry registry (docs/registry.toml) and the pages it points to.

One line per entry: `TFD001 = { status = "published", title = "..." }`. An ID is never reused:
a withdrawn entry stays in the registry with status "retired".
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..proof.envs import ROOT

DOCS = ROOT / "docs"
PATH = DOCS / "registry.toml"
ID = re.compile(r"^TFD\d{3}$")
STATUSES = ("published", "retired")
TAGS = ("slot-variables", "build-timing", "version-differences", "load-model", "ema",
        "strategy-scope", "replica-context", "cross-device-ops", "variable-aggregation")


class RegistryError(Exception):
    pass


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    status: str

    @property
    def page(self) -> Path:
        return DOCS / "e" / f"{self.id}.md"

    @property
    def url(self) -> str:
        return f"e/{self.id}/"

    @property
    def snippets(self) -> list[Path]:
        return sorted((ROOT / "snippets" / self.id).glob("*.py"))


def load() -> dict[str, Entry]:
    table = tomllib.loads(PATH.read_text())
    entries = {}
    for key, value in table.items():
        if not ID.match(key):
            raise RegistryError(f"{PATH.name}: {key!r} is not an ID of the form TFD + three digits")
        if value.get("status") not in STATUSES:
            raise RegistryError(f"{PATH.name}: {key} has status {value.get('status')!r}, not one of {STATUSES}")
        entries[key] = Entry(key, value["title"], value["status"])
    return entries


def front_matter(page: Path) -> tuple[dict, str]:
    """(metadata, body) of a markdown page with optional YAML front matter."""
    text = page.read_text()
    match = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    if not match:
        return {}, text
    return yaml.safe_load(match.group(1)) or {}, text[match.end():]


def lookup(raw: str) -> Entry:
    """The entry for a user-typed ID such as 'tfd001' or 'TFD001'; RegistryError otherwise."""
    wanted = raw.strip().upper()
    if not ID.match(wanted):
        raise RegistryError(f"{raw!r} is not an entry ID (expected TFD followed by three digits, e.g. TFD001)")
    entries = load()
    if wanted not in entries:
        raise RegistryError(f"{wanted} is not a known entry (known: {', '.join(sorted(entries))})")
    return entries[wanted]
