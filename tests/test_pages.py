"""Pages: registry and front matter agree; every fenced block is executed, a checked source
quote, or visibly marked as not run; every snippet is shown on its page."""
import re
from pathlib import Path

import pytest

from tfdist_kb import envs, notebooks, registry, runner

DOCS = registry.DOCS
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)
INCLUDE = re.compile(r'^--8<-- "(?P<target>TFD\d{3}/[\w-]+\.py):example"$')
RUNNER_INCLUDE = '--8<-- "replicas.py"'  # the device setup the runner executes before every snippet
QUOTE = re.compile(r'title="(?P<dist>[\w.-]+) (?P<version>[\w.]+) · (?P<path>[\w./-]+)"')
EXECUTED_INFO = {"python", "bash", "sh"}  # collected by pytest-codeblocks as they are


def _not_run_admonition(text: str, start: int, indent: str) -> bool:
    before = text[:start].splitlines()
    for line in reversed(before):
        if line.strip() and not line.startswith(indent or "\0"):
            return bool(re.match(r'^\s*(!!!|\?\?\?\+?) \w+ "Not run: .+"', line)) and len(indent) > 0
    return False


def quoted_file(dist: str, version: str, path: str) -> Path | None:
    """The installed file `path` of distribution `dist`==`version` in one of the environments."""
    for env in envs.load():
        if env.pins().get(envs.normalise(dist)) == version and envs.is_ready(env):
            found = sorted(env.path.glob(f"lib/python*/site-packages/{path}"))
            return found[0] if found else env.path / "MISSING" / path
    return None


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_every_fence_is_accounted_for(page):
    text = page.read_text()
    problems, skipped = [], []
    for m in FENCE.finditer(text):
        info, body, line = m["info"].strip(), m["body"], text[:m.start()].count("\n") + 1
        include = INCLUDE.match(body.strip())
        quote = QUOTE.search(info)
        if body.strip() == RUNNER_INCLUDE:
            continue
        if include:
            if not (runner.SNIPPETS / include["target"]).exists():
                problems.append(f"line {line}: includes missing snippet {include['target']}")
        elif info in EXECUTED_INFO:
            continue  # pytest-codeblocks runs it
        elif quote:
            source = quoted_file(quote["dist"], quote["version"], quote["path"])
            if source is None:
                skipped.append(f"line {line}: no built environment has {quote['dist']}=={quote['version']}")
            elif not source.exists():
                problems.append(f"line {line}: {quote['path']} is not in {quote['dist']} {quote['version']}")
            elif body.rstrip("\n") not in source.read_text():
                problems.append(f"line {line}: quote is not a verbatim excerpt of {quote['dist']} {quote['version']} {quote['path']}")
        elif _not_run_admonition(text, m.start(), m["indent"]):
            continue
        else:
            problems.append(f"line {line}: ```{info} block is neither a snippet include, an executed block, "
                            f"a checked source quote, nor inside a '!!! note \"Not run: <reason>\"' admonition")
    assert not problems, f"{page.relative_to(DOCS)}:\n" + "\n".join(problems)
    if skipped:
        pytest.skip("; ".join(skipped))


def test_registry_and_pages_agree():
    entries = registry.load()
    problems = []
    for page in sorted((DOCS / "e").glob("*.md")):
        meta, _ = registry.front_matter(page)
        entry = entries.get(page.stem)
        if entry is None:
            problems.append(f"{page.name}: not in docs/registry.toml")
            continue
        if meta.get("id") != page.stem:
            problems.append(f"{page.name}: front matter id {meta.get('id')!r} is not {page.stem}")
        if meta.get("title") != entry.title:
            problems.append(f"{page.name}: title differs from the registry's")
        bad_tags = set(meta.get("tags") or []) - set(registry.TAGS)
        if not meta.get("tags") or bad_tags:
            problems.append(f"{page.name}: tags {sorted(bad_tags) or 'missing'} are not in the vocabulary")
    for entry in entries.values():
        if entry.status == "published" and not entry.page.exists():
            problems.append(f"{entry.id}: published in the registry but {entry.page} is missing")
    assert not problems, "\n".join(problems)


def test_every_snippet_is_shown_on_its_page():
    problems = []
    for path in runner.snippet_files():
        page = DOCS / "e" / f"{path.parent.name}.md"
        wanted = f'--8<-- "{path.parent.name}/{path.name}:example"'
        if not page.exists() or wanted not in page.read_text():
            problems.append(f"{path.relative_to(runner.ROOT)} is not included by {page.relative_to(runner.ROOT)}")
        try:
            notebooks.example(path)
        except ValueError as error:
            problems.append(str(error))
    assert not problems, "\n".join(problems)
