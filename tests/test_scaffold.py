"""`make new-entry` (tfdist_kb.commands.scaffold): the next ID from the registry, an entry that has every
section and whose snippets run on 4 replicas, refused by the page audit for its placeholders and for
nothing else, and no file ever overwritten. Entries are scaffolded into copies; the repository's
own docs/, snippets/ and registry are checked to be unchanged."""
import re
import shutil
import tomllib

import pytest

from tfdist_kb.commands import cli, scaffold
from tfdist_kb.proof import envs, expect, runner
from tfdist_kb.site import errors, notebooks, pages, registry
from tfdist import matcher

ROOT = envs.ROOT
TITLE = "Why does a scaffolded entry run before any prose is written?"


def _scaffolds_in_repository() -> list[str]:
    """What these tests could have left in the repository itself: a registry line with their
    title, an entry page or snippet with the scaffold's marker."""
    left = [registry.PATH.name] if TITLE in registry.PATH.read_text() else []
    files = [*(ROOT / "docs" / "e").glob("*.md"), *(ROOT / "snippets").glob("TFD*/*.py")]
    return left + [p.relative_to(ROOT).as_posix() for p in files if pages.PLACEHOLDER.search(p.read_text())]


@pytest.fixture(autouse=True, scope="module")
def repository_untouched():
    assert _scaffolds_in_repository() == []
    yield
    assert _scaffolds_in_repository() == [], "a test of the scaffold wrote into the repository's entries or registry"


def _root_with(tmp_path, lines):
    (tmp_path / "docs" / "e").mkdir(parents=True)
    (tmp_path / "snippets").mkdir()
    (tmp_path / "docs" / "registry.toml").write_text("".join(f"{line}\n" for line in lines))
    return tmp_path


def _line(entry_id, status="published", title=None):
    return f'{entry_id} = {{ status = "{status}", title = "{title or "Question " + entry_id}" }}'


@pytest.fixture
def repo_copy(tmp_path, monkeypatch):
    """The repository's docs/ and its registered entries' snippets in tmp_path; the scaffold's
    default root, the page audit, the registry and the runner's cache look there."""
    registered = set(registry.load())  # an entry being written but not registered yet stays out
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for page in (tmp_path / "docs" / "e").glob("*.md"):
        if page.name.split(".")[0] not in registered:
            page.unlink()
    (tmp_path / "snippets").mkdir()
    for entry in sorted(registered):
        if (ROOT / "snippets" / entry).is_dir():
            shutil.copytree(ROOT / "snippets" / entry, tmp_path / "snippets" / entry)
    monkeypatch.setattr(scaffold, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "SNIPPETS", tmp_path / "snippets")
    monkeypatch.setattr(runner, "CACHE", tmp_path / "cache")  # a record keyed on bytes, not on where they were
    monkeypatch.setattr(registry, "DOCS", tmp_path / "docs")
    monkeypatch.setattr(registry, "PATH", tmp_path / "docs" / "registry.toml")
    return tmp_path


@pytest.fixture
def scaffolded(repo_copy):
    registry_before = (repo_copy / "docs" / "registry.toml").read_text()
    made = scaffold.create(TITLE, repo_copy)
    return repo_copy, made, registry_before


# ---- the ID ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines, expected", [
    ([_line(f"TFD00{i}") for i in range(1, 6)], "TFD006"),
    ([_line("TFD001"), _line("TFD002"), _line("TFD004")], "TFD005"),  # a gap is never filled
    ([_line("TFD001"), _line("TFD007", "retired"), _line("TFD003")], "TFD008"),  # a retired ID stays taken
    ([], "TFD001"),
], ids=["001-005", "gap", "retired-highest", "empty"])
def test_next_id_is_after_the_highest_ever_registered(tmp_path, lines, expected):
    root = _root_with(tmp_path, lines)
    assert scaffold.plan(TITLE, root).id == expected
    assert scaffold.create(TITLE, root).id == expected
    table = tomllib.loads((root / "docs" / "registry.toml").read_text())
    assert list(table)[-1] == expected and table[expected] == {"status": "published", "title": TITLE}


def test_no_id_left_after_tfd999(tmp_path):
    root = _root_with(tmp_path, [_line("TFD999")])
    with pytest.raises(scaffold.ScaffoldError, match="no free ID"):
        scaffold.plan(TITLE, root)


def test_title_is_written_exactly_whatever_it_holds(tmp_path):
    title = 'Why does "strategy.run" fail with a backslash \\ and a colon: here, 分布式?'
    root = _root_with(tmp_path, [_line("TFD001")])
    made = scaffold.create(title, root)
    assert tomllib.loads((root / "docs" / "registry.toml").read_text())[made.id]["title"] == title
    assert registry.front_matter(root / "docs" / "e" / f"{made.id}.md")[0]["title"] == title


# ---- refusals ----------------------------------------------------------------------------------

@pytest.mark.parametrize("title, says", [
    ("", "the title is empty"), ("   ", "the title is empty"), ("Why\ndoes it fail?", "one line"),
    ("Why does it fail?\r", "one line"), ("Why\tdoes it fail?", "control character"),
    ("W" * (scaffold.MAX_TITLE + 1), f"at most {scaffold.MAX_TITLE}"),
])
def test_bad_title_is_refused_in_one_line(tmp_path, capsys, title, says):
    root = _root_with(tmp_path, [_line("TFD001")])
    with pytest.raises(scaffold.ScaffoldError, match=says):
        scaffold.create(title, root)
    assert sorted(p.name for p in root.rglob("*")) == ["docs", "e", "registry.toml", "snippets"]
    assert cli.main(["new-entry", title]) == 2  # the command, on the repository itself: refused before anything
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tfdist: new-entry: ") and says in err


@pytest.mark.parametrize("existing", ["docs/e/TFD002.md", "docs/e/TFD002.zh.md", "snippets/TFD002/fix.py",
                                      "snippets/TFD002/other.py"])
def test_existing_files_are_never_overwritten(tmp_path, existing):
    root = _root_with(tmp_path, [_line("TFD001")])
    (root / existing).parent.mkdir(parents=True, exist_ok=True)
    (root / existing).write_text("mine\n")
    registry_before = (root / "docs" / "registry.toml").read_text()
    with pytest.raises(scaffold.ScaffoldError, match="already exists.*nothing was written"):
        scaffold.create(TITLE, root)
    assert (root / existing).read_text() == "mine\n"
    assert (root / "docs" / "registry.toml").read_text() == registry_before
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == \
        sorted(["docs/registry.toml", existing])


def test_same_title_twice_is_refused(tmp_path):
    root = _root_with(tmp_path, [_line("TFD001", title=TITLE)])
    with pytest.raises(scaffold.ScaffoldError, match="TFD001 already has this title"):
        scaffold.create(TITLE, root)


def test_command_dry_run_writes_nothing_then_creates(repo_copy, capsys):
    expected = scaffold.next_id(tomllib.loads(registry.PATH.read_text()))
    files = [f"snippets/{expected}/failing.py", f"snippets/{expected}/fix.py", f"docs/e/{expected}.md",
             f"docs/e/{expected}.zh.md"]
    registry_before = registry.PATH.read_text()
    assert cli.main(["new-entry", TITLE, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert all(f"would create {path}" in out for path in files) and "would add its line to docs/registry.toml" in out
    assert registry.PATH.read_text() == registry_before and not any((repo_copy / path).exists() for path in files)
    assert cli.main(["new-entry", TITLE]) == 0
    assert all((repo_copy / path).is_file() for path in files) and registry.load()[expected].title == TITLE
    assert cli.main(["new-entry", TITLE]) == 2  # the same question twice: refused, in one line
    err = capsys.readouterr().err
    assert err == f"tfdist: new-entry: {expected} already has this title\n"


# ---- what a scaffold is ------------------------------------------------------------------------

def test_scaffold_has_every_part_of_an_entry(scaffolded):
    root, made, registry_before = scaffolded
    entry = made.id
    assert entry == scaffold.next_id(tomllib.loads(registry_before))
    text = (root / "docs" / "registry.toml").read_text()
    assert text.startswith(registry_before) and tomllib.loads(text)[entry] == {"status": "published", "title": TITLE}
    en, zh = root / "docs" / "e" / f"{entry}.md", root / "docs" / "e" / f"{entry}.zh.md"
    meta_en, body_en = registry.front_matter(en)
    meta_zh, body_zh = registry.front_matter(zh)
    assert meta_en["id"] == meta_zh["id"] == entry and meta_en["title"] == TITLE and meta_zh["title"]
    assert meta_en["tags"] == meta_zh["tags"]
    assert meta_en["fix"] and meta_zh["fix"] and "\n" not in meta_en["fix"]
    for body, headings in ((body_en, ["Short answer", "Do this", "Why", "Failing example", "Across versions",
                                      "What the widely shared answer gets wrong"]),
                           (body_zh, ["简短回答", "这样做", "原因", "失败示例", "各版本对比", "流传甚广的答案错在哪里"])):
        assert re.findall(r"^## (.*)$", body, re.MULTILINE) == headings
        assert body.count('!!! question "') == 1 and "{{ verified_on() }}" in body
        assert f'{{{{ outcomes("{entry}") }}}}' in body
    # the signatures: a sound error index, and the starter's own message finds the entry
    index = errors.build("http://kb.test/")
    item = next(e for e in index["entries"] if e["id"] == entry)
    assert item["signatures"] == meta_en["signatures"]
    best = matcher.match("NotImplementedError: TODO(author): replace with the failing example", index)[0]
    assert best["id"] == entry
    # the snippets: declared for every environment, and each has the section the page and notebook show
    names = [e.name for e in envs.load()]
    failing, fix = root / "snippets" / entry / "failing.py", root / "snippets" / entry / "fix.py"
    for path in (failing, fix):
        assert set(expect.read(path, names)) == set(names)
        assert "strategy.run(step)" in notebooks.example(path)
    declared = runner.expectations(failing)
    assert declared[envs.default().name] == expect.Expectation(
        "raises", exception="NotImplementedError", match=r"TODO\(author\): replace with the failing example")
    assert runner.expectations(fix)[envs.default().name] == expect.Expectation("passes")


def test_audit_refuses_the_scaffold_for_its_placeholders_and_nothing_else(scaffolded):
    root, made, _ = scaffolded
    files = [root / "docs" / "e" / f"{made.id}.md", root / "docs" / "e" / f"{made.id}.zh.md",
             root / "snippets" / made.id / "failing.py", root / "snippets" / made.id / "fix.py"]
    for page in files[:2]:
        problems = pages.audit(page.read_text())
        assert problems and all("placeholder left by make new-entry" in p for p in problems), problems
        flagged = {name for name in ("failing.py", "fix.py") if any(f"/{name} line" in p for p in problems)}
        assert flagged == {"failing.py", "fix.py"}  # both snippets, from either page
        front_matter = page.read_text().split("\n---\n", 1)[0].count("\n") + 1
        assert any(int(p.split(":")[0].split()[1]) <= front_matter for p in problems if "snippets/" not in p)
    for path in files:  # once each marker is replaced by real text, nothing is left to refuse
        path.write_text(pages.PLACEHOLDER.sub("Written", path.read_text()))
    for page in files[:2]:
        assert pages.audit(page.read_text()) == []


def test_placeholder_in_a_comment_is_still_refused(scaffolded):
    root, made, _ = scaffolded
    text = pages.PLACEHOLDER.sub("Written", (root / "docs" / "e" / f"{made.id}.md").read_text())
    for path in (root / "snippets" / made.id).glob("*.py"):
        path.write_text(pages.PLACEHOLDER.sub("Written", path.read_text()))
    assert pages.audit(text) == []
    problems = pages.audit(text + "\n<!-- TODO(author): a last paragraph -->\n")
    assert len(problems) == 1 and "placeholder left by make new-entry" in problems[0]


@pytest.fixture(scope="module")
def default_env():
    return envs.ensure(envs.default())


def test_starter_snippets_run_on_4_replicas_as_declared(scaffolded, default_env):
    """Before any prose: the failing starter raises what it declares, the fix passes, both proven on
    4 replicas on 4 distinct devices (one run each, default environment)."""
    root, made, _ = scaffolded
    paths = [root / "snippets" / made.id / "failing.py", root / "snippets" / made.id / "fix.py"]
    failing, fix = runner.jobs([default_env], paths)
    raised = runner.run(failing, use_cache=False)
    assert runner.judge(failing, raised) == []
    assert (raised["outcome"], raised["exception"], raised["replicas"]) == ("raised", "NotImplementedError", 4)
    passed = runner.run(fix, use_cache=False)
    assert runner.judge(fix, passed) == []
    assert (passed["outcome"], passed["replicas"]) == ("passed", 4)
    assert len(set(passed["ran_on"])) == 4 and "replica ids: [0, 1, 2, 3]" in passed["stdout"]
