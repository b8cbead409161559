"""Why a snippet did not run somewhere, or asks for a fresh kernel, in the page's language.

A snippet declares its not-applicable and restart-kernel reasons in English (its `# /// tfdist`
block, which the runner reads and the evidence keeps). A Chinese page shows them in Chinese: its
entry's Chinese page maps each English reason to its Chinese text in the front matter key
`reasons` (the entry owns its words, like its title). The runner's own reason for a bisection
environment ("X is a bisection environment; it runs only …") is written from its parts. A reason
with no translation stops the build, naming the entry and the reason.
"""
from __future__ import annotations

import functools
import re

from . import i18n, registry

BISECTION = re.compile(r"^(?P<env>\S+) is a bisection environment; it runs only (?P<only>.+)$", re.DOTALL)
KEY = "reasons"


class MissingTranslation(ValueError):
    """A reason a page shows has no text in the page's language."""


@functools.lru_cache(maxsize=None)
def _table(entry_id: str, lang: str) -> dict[str, str]:
    entry = registry.load().get(entry_id)
    if entry is None:
        return {}
    page = entry.page.with_name(f"{entry.id}.{lang}.md")
    meta, _ = registry.front_matter(page) if page.exists() else ({}, "")
    table = meta.get(KEY) or {}
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise MissingTranslation(f"{page.name}: front matter `{KEY}` must map each English reason to its text")
    return {" ".join(k.split()): v.strip() for k, v in table.items()}


def localized(reason: str, entry_id: str, lang: str | None = None) -> str:
    """`reason` (as declared or recorded) in `lang` (default: the page being built)."""
    lang = lang or i18n.language()
    if lang == i18n.DEFAULT:
        return reason
    bisection = BISECTION.match(reason.strip())
    if bisection:
        return i18n.phrase("bisection_reason", lang, env=bisection["env"], only=bisection["only"])
    found = _table(entry_id, lang).get(" ".join(reason.split()))
    if found is None:
        raise MissingTranslation(f"{entry_id}: the reason {reason!r} has no {lang} text: add it under `{KEY}` "
                                 f"in the front matter of docs/e/{entry_id}.{lang}.md")
    return found


def entry_of(snippet: str) -> str:
    """'TFD001/x.py' or 'snippets/TFD001/x.py' -> 'TFD001'."""
    found = re.search(r"TFD\d{3}", snippet)
    if not found:
        raise ValueError(f"{snippet}: not a snippet of an entry")
    return found.group(0)
