"""MkDocs hook: one search index per language, so that a page downloads only its own language's.

mkdocs-static-i18n builds the languages one after another and writes one search index that holds
them all (`search/search_index.json`; Material's offline plugin copies it into `search_index.js`).
Material's bundle fetches that file from the page's `base` (its `__config`). After everything else
has written it, this hook splits it: the default language's documents stay in `search/`, each other
language's move to `<lang>/search/` with locations relative to `<lang>/`, and every page of that
language gets `<lang>/` as its `base`, so its search fetches, and its results link, in its own tree.
`base` serves Material for nothing else this site turns on (versions, instant loading).
"""
from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import mkdocs.plugins

from tfdist_kb.site import i18n

CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)
NAMES = ("search_index.json", "search_index.js")
SCRIPT = "var __index = "  # how Material's offline plugin writes the index for file://


def prefix(lang: str) -> str:
    """Where a language's pages live, relative to the site's root."""
    return "" if lang == i18n.DEFAULT else f"{lang}/"


def on_post_page(output: str, page, config) -> str:
    """A page in another language than the default gets its language's root as Material's `base`."""
    lang = i18n.page_language(page)
    if lang == i18n.DEFAULT:
        return output

    def rebase(found: re.Match) -> str:
        settings = json.loads(found.group(2))
        settings["base"] = posixpath.join(settings["base"], prefix(lang))
        return found.group(1) + json.dumps(settings) + found.group(3)

    return CONFIG.sub(rebase, output, count=1)


def split(site: Path) -> dict[str, int]:
    """Split the site's search index (and its file:// copy) per language; {lang: documents}."""
    counts: dict[str, int] = {}
    for name in NAMES:
        source = site / "search" / name
        if not source.is_file():
            continue
        text = source.read_text(encoding="utf-8")
        script = name.endswith(".js")
        index = json.loads(text[len(SCRIPT):] if script else text)
        others = [prefix(lang) for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
        for lang in i18n.LANGUAGES:
            own = prefix(lang)
            docs = [dict(doc, location=doc["location"][len(own):]) for doc in index["docs"]
                    if (doc["location"].startswith(own) if own
                        else not any(doc["location"].startswith(p) for p in others))]
            target = site / own / "search" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            # the default language's pages hold no other language's words: its worker loads no other stemmer
            settings = index["config"]
            body = json.dumps(dict(index, config=settings, docs=docs), ensure_ascii=False, separators=(",", ":"))
            target.write_text(SCRIPT + body if script else body, encoding="utf-8")
            counts[lang] = len(docs)
    return counts


@mkdocs.plugins.event_priority(-110)  # after mkdocs-static-i18n (-100) wrote the index of all languages
def on_post_build(config) -> None:
    plugin = config["plugins"].get("i18n")
    if plugin is not None and getattr(plugin, "building", False):
        return  # a language built inside static-i18n's own on_post_build: the whole index comes later
    split(Path(config["site_dir"]))
