"""`make new-entry TITLE="..."`: the files of a new entry, with every section in place and
every part still to be written marked `TODO(author)`.

Takes the next ID after the highest one in docs/registry.toml (retired IDs and gaps count: an ID
is never reused), and writes the English and the Chinese page, a failing and a fix snippet that
already run on 4 replicas, and the registry line. Nothing is overwritten. The page audit
(`tfdist_kb.site.pages.placeholders`) refuses the entry while a placeholder remains, so a scaffold
cannot be published by accident; until then it builds (`make serve`) and its snippets run.
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..site import registry
from ..proof.envs import ROOT

MAX_TITLE = 150
MARK = "TODO(author)"  # what tfdist_kb.site.pages.PLACEHOLDER finds


class ScaffoldError(Exception):
    """The entry cannot be created; the message says why in one line."""


@dataclass(frozen=True)
class Plan:
    root: Path
    id: str
    files: dict[Path, str]  # path -> content, in the order written
    registry_line: str
    registry: Path


# ---- the templates ---------------------------------------------------------------------------

# The sections every entry has, English -> Chinese: one set of headings in both languages (a section
# may add its own words after a colon: "Do this: ..." / "这样做：..."). tests/test_truth_ties.py holds
# every page to it.
SECTIONS = {
    "Short answer": "简短回答",
    "Do this": "这样做",
    "Why": "原因",
    "Failing example": "失败示例",
    "Across versions": "各版本对比",
    "What the widely shared answer gets wrong": "流传甚广的答案错在哪里",
}

_EXPECT_NOT_TF1 = ('# "tf1.15" = { not-applicable = "TF 1.15 has no Strategy.run, and its MirroredStrategy() '
                   'does not use the 4 logical CPU devices" }\n')

FAILING = Template('''\
# /// tfdist
# [expect]
# default = { raises = "NotImplementedError", match = "TODO\\\\(author\\\\): replace with the failing example" }
''' + _EXPECT_NOT_TF1 + '''\
# ///
# The expectations above are the starter's. Replace them with what the real example does in each
# environment, found by running it there: tfdist run snippets/$id/failing.py --env NAME
# Only the example section below is shown on the page; it must be the whole program.
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def step():
    raise NotImplementedError("TODO(author): replace with the failing example")


strategy.run(step)
# --8<-- [end:example]
''')

FIX = Template('''\
# /// tfdist
# [expect]
# default = "passes"
''' + _EXPECT_NOT_TF1 + '''\
# ///
# The expectations above are the starter's; find the real ones by running the fix in each
# environment: tfdist run snippets/$id/fix.py --env NAME
# A passing snippet asserts its own result (variables mirrored, all 4 replicas ran, right values).
# --8<-- [start:example]
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


@tf.function
def step():
    # TODO(author): replace with the fix; keep assertions that prove the result
    return tf.distribute.get_replica_context().replica_id_in_sync_group


replica_ids = [int(t) for t in strategy.experimental_local_results(strategy.run(step))]
print("replica ids:", replica_ids)
assert replica_ids == [0, 1, 2, 3]
# --8<-- [end:example]
''')

_HEAD = '''\
---
id: $id
title: $title_yaml
short: "$short"  # the navigation's title after the ID: a few words
tags: [TODO(author)]  # one or more of: $tags
terms: ["TODO(author)"]  # the words readers search it by: a few short phrases in this page's language
fix: "$fix"
'''

PAGE_EN = Template(_HEAD + '''\
fix_snippets: [$id/fix.py]  # the snippets that do what `fix` says; put the API names `fix` recommends in backticks
signatures:
  # regular expressions for the message family this entry answers (see docs/contributing.md)
  - 'TODO\\(author\\): replace'
---

# $title

!!! question "What users see"
    TODO(author): one sentence on what users do; the message below is the failing example's, as recorded.

    {{ users_see("$id/failing.py") | indent(4) }}

## Short answer
- TODO(author): the answer in two or three points. Name releases with claim() and version(),
  never by typing them; for example, the failing example raises on
  {{ claim("$id/failing.py", "raises") }}.

## Do this
TODO(author): the fix in one or two sentences (tabs when Keras generations differ).

```python title="snippets/$id/fix.py"
--8<-- "$id/fix.py:example"
```

{{ outcome("$id/fix.py") }}

{{ verified_on() }}

## Why
TODO(author): the mechanism, with verbatim quotes of the source of a release an environment pins.

## Failing example
TODO(author): what this program does, and how it differs from the fix.

```python title="snippets/$id/failing.py"
--8<-- "$id/failing.py:example"
```

{{ outcome("$id/failing.py") }}

## Across versions
{{ outcomes("$id") }}

## What the widely shared answer gets wrong
- <q>TODO(author): the advice in circulation, quoted.</q> **TODO(author): true, false or partly
  true.** TODO(author): what the runs show, with claim().
''')

PAGE_ZH = Template(_HEAD + '''\
---

# TODO(author): 中文标题

!!! question "用户看到的现象"
    TODO(author): 用一句话说明用户做了什么；下面的报错是失败示例实际运行时记录下来的。

    {{ users_see("$id/failing.py") | indent(4) }}

## 简短回答
- TODO(author): 用两三点说清答案。版本一律用 claim() 和 version() 写出，不要手写；例如失败示例在
  {{ claim("$id/failing.py", "raises") }} 上抛出异常。

## 这样做
TODO(author): 用一两句话说明修复方法（不同 Keras 代际做法不同时用标签页分开）。

```python title="snippets/$id/fix.py"
--8<-- "$id/fix.py:example"
```

{{ outcome("$id/fix.py") }}

{{ verified_on() }}

## 原因
TODO(author): 原理，附上某个环境所固定版本的源码逐字引用。

## 失败示例
TODO(author): 这个程序做了什么，和修复版有什么不同。

```python title="snippets/$id/failing.py"
--8<-- "$id/failing.py:example"
```

{{ outcome("$id/failing.py") }}

## 各版本对比
{{ outcomes("$id") }}

## 流传甚广的答案错在哪里
- <q>TODO(author): 引用流传的说法。</q> **TODO(author): 对、错还是部分正确。** TODO(author): 运行记录说明了什么，用 claim() 写出版本。
''')


# ---- planning and writing ----------------------------------------------------------------------

def check_title(title: str) -> str:
    """The title, stripped; ScaffoldError if it is empty, too long or not one line."""
    if not isinstance(title, str) or not title.strip():
        raise ScaffoldError('the title is empty: give the question, e.g. "Why does ... under MirroredStrategy?"')
    if any(c in title for c in "\r\n"):
        raise ScaffoldError("the title must be one line")
    title = title.strip()
    if any(ord(c) < 32 or ord(c) == 127 for c in title):
        raise ScaffoldError("the title contains a control character")
    if len(title) > MAX_TITLE:
        raise ScaffoldError(f"the title is {len(title)} characters long; at most {MAX_TITLE}")
    return title


def _registry(path: Path) -> dict:
    try:
        table = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ScaffoldError(f"no registry at {path}") from None
    except tomllib.TOMLDecodeError as error:
        raise ScaffoldError(f"{path.name} is not valid TOML: {error}") from None
    bad = [key for key in table if not registry.ID.match(key)]
    if bad:
        raise ScaffoldError(f"{path.name}: {bad[0]!r} is not an ID of the form TFD + three digits")
    return table


def next_id(table: dict) -> str:
    """The number after the highest ID ever registered, retired ones included: never a gap's."""
    number = max((int(key[3:]) for key in table), default=0) + 1
    if number > 999:
        raise ScaffoldError("no free ID: TFD999 is taken")
    return f"TFD{number:03d}"


def plan(title: str, root: Path | None = None) -> Plan:
    """What `create` would write under `root` (default: this repository); ScaffoldError for a bad
    title or an existing file."""
    title = check_title(title)
    root = root or ROOT
    path = root / "docs" / "registry.toml"
    table = _registry(path)
    same = [key for key, value in table.items() if isinstance(value, dict) and value.get("title") == title]
    if same:
        raise ScaffoldError(f"{same[0]} already has this title")
    entry = next_id(table)
    fields = {"id": entry, "title": title, "title_yaml": json.dumps(title, ensure_ascii=False),
              "tags": ", ".join(registry.TAGS)}
    files = {
        root / "snippets" / entry / "failing.py": FAILING.substitute(fields),
        root / "snippets" / entry / "fix.py": FIX.substitute(fields),
        root / "docs" / "e" / f"{entry}.md": PAGE_EN.substitute(fields, fix=f"{MARK}: what to do, in one line",
                                                                  short=f"{MARK}: a short title"),
        root / "docs" / "e" / f"{entry}.zh.md": PAGE_ZH.substitute(
            fields, title_yaml=f'"{MARK}: 中文标题"', fix=f"{MARK}: 用一句话说明怎么做", short=f"{MARK}: 短标题"),
    }
    taken = [p for p in [root / "snippets" / entry, *files] if p.exists()]
    if taken:
        raise ScaffoldError(f"{taken[0].relative_to(root)} already exists, but {entry} is not in {path.name}: "
                            f"register it or remove it; nothing was written")
    line = f'{entry} = {{ status = "published", title = {json.dumps(title, ensure_ascii=False)} }}\n'
    if tomllib.loads(line)[entry]["title"] != title:  # the same escapes as JSON: checked, not assumed
        raise ScaffoldError("the title cannot be written to the registry as it is")
    return Plan(root, entry, files, line, path)


def create(title: str, root: Path | None = None) -> Plan:
    """Write the entry's files (each created, never overwritten), then its registry line."""
    made = plan(title, root)
    written = []
    try:
        for path, text in made.files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8") as handle:
                handle.write(text)
            written.append(path)
    except FileExistsError as error:  # appeared since plan(): undo this run's files only
        for path in written:
            path.unlink()
        raise ScaffoldError(f"{error.filename} appeared while writing; nothing was written") from None
    text = made.registry.read_text()
    made.registry.write_text(text + ("" if text.endswith("\n") or not text else "\n") + made.registry_line)
    return made
