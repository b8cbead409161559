"""The error index: which messages each entry answers, and where each was reproduced.

Built from the registry, each page's front matter (`fix`, `fix_snippets`, `signatures`) and the evidence, in one
shape (schema 1) for three readers: the site's `/errors.json`, the data file shipped inside the
user-facing `tfdist` package (`tfdist/src/tfdist/data/errors.json`, the matcher's data), and the
site's error index page.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import yaml
from tfdist import matcher

from ..proof import envs, evidence, files
from . import registry

SCHEMA = matcher.SCHEMA
PACKAGE_DATA = envs.ROOT / "tfdist" / "src" / "tfdist" / "data" / "errors.json"
BASE_URL_VARIABLE = "TFDIST_BASE_URL"


class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml as mkdocs reads it, where `!ENV [NAME, default]` is the default."""


_ConfigLoader.add_constructor("!ENV", lambda loader, node: (loader.construct_sequence(node)[-1]
                                                            if isinstance(node, yaml.SequenceNode) else None))
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def default_base_url() -> str:
    """The site's address when no mirror is set: mkdocs.yml's `site_url` default (what `make serve` serves)."""
    config = yaml.load((envs.ROOT / "mkdocs.yml").read_text(), Loader=_ConfigLoader)
    return config["site_url"].rstrip("/") + "/"


def base_url() -> str:
    """The one setting for the site's address: $TFDIST_BASE_URL, else the default."""
    return (os.environ.get(BASE_URL_VARIABLE) or default_base_url()).rstrip("/") + "/"


class DeclarationError(ValueError):
    """An entry's front matter does not declare its errors properly."""


def _declared(entry: registry.Entry) -> tuple[str, list[str]]:
    meta, _ = registry.front_matter(entry.page)
    fix, signatures = meta.get("fix"), meta.get("signatures")
    where = f"{entry.id} ({entry.page.name})"
    if not isinstance(fix, str) or not fix.strip() or "\n" in fix.strip():
        raise DeclarationError(f"{where}: front matter needs `fix:`, one line saying what to do")
    if not isinstance(signatures, list) or not signatures or not all(isinstance(s, str) for s in signatures):
        raise DeclarationError(f"{where}: front matter needs `signatures:`, a list of regular expressions")
    return fix.strip(), signatures


def reproduced(entry_id: str, records: dict | None = None) -> list[dict]:
    """Every recorded run of the entry's snippets that raised: environment, versions, exception, headline."""
    records = evidence.load() if records is None else records
    order = {e.name: i for i, e in enumerate(envs.load())}
    out = [{"snippet": r["snippet"].removeprefix("snippets/"), "env": r["env"], "tensorflow": r["tensorflow"],
            "keras": r.get("keras"), "keras_package": r.get("keras_package"), "exception": r["exception"],
            "headline": r.get("headline") or r.get("message")}
           for (snippet, _), r in records.items()
           if r["outcome"] == "raised" and snippet.startswith(f"snippets/{entry_id}/")]
    return sorted(out, key=lambda r: (r["snippet"], order.get(r["env"], 99)))


def search_terms(entry: registry.Entry) -> list[str]:
    """The entry's `terms` (front matter of its page in each language), each a short phrase."""
    from . import i18n

    terms: list[str] = []
    for lang in i18n.LANGUAGES:
        page = entry.page if lang == i18n.DEFAULT else entry.page.with_name(f"{entry.id}.{lang}.md")
        declared = registry.front_matter(page)[0].get("terms") if page.exists() else None
        if declared is None:
            continue
        if not isinstance(declared, list) or not all(isinstance(t, str) and t.strip() for t in declared):
            raise DeclarationError(f"{entry.id} ({page.name}): `terms` must be a list of phrases")
        for term in declared:
            if len(term) > matcher.TERM_TEXT // 3 or matcher.normalise(term) != term.strip():
                raise DeclarationError(f"{entry.id} ({page.name}): the term {term!r} is not a short phrase")
            if term.strip() not in terms:
                terms.append(term.strip())
    return terms


def build(base: str | None = None) -> dict:
    """The error index (schema 1) with URLs under `base` (default: the configured site address)."""
    base = (base or base_url()).rstrip("/") + "/"
    records = evidence.load()
    entries = []
    for entry in registry.load().values():
        item = {"id": entry.id, "title": entry.title, "path": entry.url, "url": base + entry.url,
                "status": entry.status}
        if entry.status == "published":
            meta, _ = registry.front_matter(entry.page)
            fix, signatures = _declared(entry)
            item.update({"tags": meta.get("tags") or [], "fix": fix})
            if meta.get("fix_snippets"):  # the snippets that do what `fix` says (tests/test_truth_ties.py)
                item["fix_snippets"] = list(meta["fix_snippets"])
            item.update({"signatures": signatures, "reproduced": reproduced(entry.id, records)})
            terms = search_terms(entry)
            if terms:  # the words readers search it by, in every language (tfdist.matcher.match_terms)
                item["terms"] = terms
        entries.append(item)
    index = {"schema": SCHEMA, "base_url": base, "entries": entries}
    problems = matcher.check(index)  # the matcher's own rules: the one implementation
    if problems:
        raise DeclarationError("the error index is not sound: " + "; ".join(problems))
    return index


def dumps(index: dict) -> str:
    return json.dumps(index, indent=1, ensure_ascii=False) + "\n"


def write_package_data(path: Path = PACKAGE_DATA) -> Path:
    """The `tfdist` package's copy, with the default address (a mirror is chosen at run time)."""
    return files.write_atomic(path, dumps(build(default_base_url())))


# The site's search box: the matcher's data for the browser ------------------------------------

SEARCH_SCRIPT = "assets/tfdist/signatures.js"


def _javascript(signature: str) -> str:
    """A signature as a JavaScript RegExp source: the two Python-only spellings of named groups
    rewritten; anything else Python-only fails `search_data` (the browser must run the same
    expression)."""
    import re

    source = re.sub(r"\(\?P<", "(?<", signature)
    source = re.sub(r"\(\?P=(\w+)\)", r"\\k<\1>", source)
    unsupported = re.search(r"\\[AZ]|\(\?[aiLmsux-]+[:)]|\(\?#|\(\?>|[*+?}][+]", source)
    if unsupported:
        raise DeclarationError(f"signature {signature!r}: {unsupported.group(0)!r} has no JavaScript "
                               f"equivalent; the site's search could not run it")
    return source


def page_path(path: str, directory_urls: bool = True) -> str:
    """An entry's path as a build publishes it: `e/TFD001/`, or `e/TFD001.html` in a build without
    directory URLs (the offline variant, read from file://), where the search index names it so."""
    return path if directory_urls or not path.endswith("/") else path.rstrip("/") + ".html"


def search_data(index: dict | None = None, directory_urls: bool = True) -> dict:
    """What the site's search box matches a pasted message with: each published entry's path (as
    this build publishes its page) and signatures, each with the literal score `tfdist.matcher`
    gives it (the scoring is the matcher's; the browser only runs the expressions)."""

    index = index or build()
    return {"schema": SCHEMA, "max_text": matcher.MAX_TEXT, "term_text": matcher.TERM_TEXT,
            "entries": [
        {"id": e["id"], "path": page_path(e["path"], directory_urls),
         "signatures": [[_javascript(s), matcher.literal_score(s)] for s in e["signatures"]],
         "terms": e.get("terms", [])}
        for e in index["entries"] if e["status"] == "published"]}


def search_script(index: dict | None = None, directory_urls: bool = True) -> str:
    return ("// Generated by tfdist_kb.site.errors.search_script from the error index: do not edit.\n"
            "window.tfdistSignatures = "
            + json.dumps(search_data(index, directory_urls), ensure_ascii=False) + ";\n")
