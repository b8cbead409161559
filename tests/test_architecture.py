"""The machinery's rooms and their import rules, read from the source (ast), not from a list:

    tfdist_kb.commands -> tfdist_kb.site -> tfdist_kb.proof      (and commands -> proof)

proof imports nothing of site or commands, site nothing of commands, the user package tfdist nothing
of tfdist_kb (it finds the maintainers' commands through the `tfdist.commands` entry point), and no
module imports one that imports it back, directly or around a circle (imports inside functions count).
The modules that run under every environment's interpreter (Python 3.7 and later) import, of the
repository, only each other and tfdist; the packages' __init__ files import nothing.
"""
import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"tfdist_kb": Path("tfdist_kb"), "tfdist": Path("tfdist/src/tfdist")}
ROOMS = ("proof", "site", "commands")
MAY_IMPORT = {"proof": {"proof"}, "site": {"proof", "site"}, "commands": {"proof", "site", "commands"}}
IN_ENVS = {"tfdist_kb.proof.child", "tfdist_kb.proof.replicas", "tfdist_kb.proof.witness",
           "tfdist_kb.proof.forkserver"}


def modules(root: Path) -> dict[str, Path]:
    """Every module of both packages under `root`: dotted name -> file."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `name` imports anywhere in its file (a package's own name when
    what is imported from it is not a module)."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            module = ".".join(base + (node.module.split(".") if node.module else []))
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import tfdist_kb.proof.runner.X`: the module part
                target = target.rpartition(".")[0]
            if target:
                out.add(target)
    out.discard(name)
    return out


def graph(root: Path) -> dict[str, set[str]]:
    found = modules(root)
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def room(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "tfdist_kb" and len(parts) > 1 else None


def violations(edges: dict[str, set[str]]) -> list[str]:
    """Every broken rule, one line each."""
    found = []
    for name, targets in sorted(edges.items()):
        for target in sorted(targets):
            if name.split(".")[0] == "tfdist" and target.split(".")[0] == "tfdist_kb":
                found.append(f"{name} imports {target}: the user package never imports the knowledge base")
            if room(name) in MAY_IMPORT and target.startswith("tfdist_kb") and room(target) not in MAY_IMPORT[room(name)]:
                found.append(f"{name} imports {target}: {room(name)} may import only {sorted(MAY_IMPORT[room(name)])}")
            if name in IN_ENVS and target.startswith("tfdist_kb") and target not in IN_ENVS:
                found.append(f"{name} imports {target}: it runs under every environment's interpreter")
        if name in ("tfdist_kb", *(f"tfdist_kb.{r}" for r in ROOMS)) and targets:
            found.append(f"{name} (__init__) imports {sorted(targets)}: it must stay trivial")
    for name in sorted(edges):
        if name.startswith("tfdist_kb.") and room(name) not in ROOMS:
            found.append(f"{name} is in no room: move it into {', '.join(f'tfdist_kb/{r}/' for r in ROOMS)}")
    return found + [f"import circle: {' -> '.join(circle)}" for circle in circles(edges)]


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected group of two or more modules (Tarjan), as a path."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    out = []
    for group in groups:  # a path around the circle, from its first module back to it
        start, members, path = group[0], set(group), [group[0]]
        while True:
            nxt = min(t for t in edges[path[-1]] if t in members)
            if nxt in path:
                out.append(path[path.index(nxt):] + [nxt])
                break
            path.append(nxt)
    return out


def test_every_module_keeps_its_room():
    edges = graph(ROOT)
    assert {room(n) for n in edges if n.startswith("tfdist_kb.")} == set(ROOMS)
    assert len(edges) > 30 and "tfdist.cli" in edges, sorted(edges)  # both packages were read
    assert violations(edges) == []


def test_the_rooms_are_used_as_drawn():
    """The arrows are real (each room imports the one below it), so the rules above check something."""
    edges = graph(ROOT)
    pairs = {(room(a), room(b)) for a, targets in edges.items() for b in targets if room(a) and room(b)}
    assert {("site", "proof"), ("commands", "site"), ("commands", "proof")} <= pairs
    assert any(t.startswith("tfdist.") for t in edges["tfdist_kb.commands.cli"])  # kb -> tfdist is allowed


def copy_sources(to: Path):
    """The Python files of both packages, in their folders, under `to`."""
    def not_python(folder, names):
        return [n for n in names if n in ("__pycache__", "node_modules")
                or not (n.endswith(".py") or Path(folder, n).is_dir())]

    for folder in PACKAGES.values():
        shutil.copytree(ROOT / folder, to / folder, ignore=not_python)


@pytest.mark.parametrize("module, line, expected", [
    ("tfdist_kb/proof/files.py", "from tfdist_kb.site import registry", "proof may import only ['proof']"),
    ("tfdist_kb/proof/evidence.py", "from ..commands import cli", "proof may import only ['proof']"),
    ("tfdist_kb/site/pages.py", "from tfdist_kb.commands.cli import main", "site may import only"),
    ("tfdist/src/tfdist/cli.py", "import tfdist_kb.commands.cli", "the user package never imports"),
    ("tfdist/src/tfdist/cli.py", "    from tfdist_kb.commands import cli as kb_cli", "the user package never imports"),
    ("tfdist_kb/proof/files.py", "from . import runner", "import circle: "),
    ("tfdist_kb/proof/child.py", "from tfdist_kb.proof import runner", "runs under every environment's interpreter"),
    ("tfdist_kb/proof/__init__.py", "from . import envs", "must stay trivial"),
])
def test_a_wrong_import_is_reported(tmp_path, module, line, expected):
    """Mutation: a copy of both packages with one wrong import added is reported, naming it."""
    copy_sources(tmp_path)
    assert violations(graph(tmp_path)) == []
    target = tmp_path / module
    text = target.read_text(encoding="utf-8")
    if line.startswith(" "):  # inside a function: lazy imports count as much as top-level ones
        text += "\n\ndef _late():\n" + line + "\n"
    else:
        text += "\n" + line + "\n"
    target.write_text(text, encoding="utf-8")
    found = violations(graph(tmp_path))
    assert any(expected in v for v in found), found


def test_a_module_outside_the_rooms_is_reported(tmp_path):
    copy_sources(tmp_path)
    (tmp_path / "tfdist_kb" / "loose.py").write_text("import json\n", encoding="utf-8")
    assert violations(graph(tmp_path)) == ["tfdist_kb.loose is in no room: move it into "
                                           "tfdist_kb/proof/, tfdist_kb/site/, tfdist_kb/commands/"]


def test_child_starts_without_the_rest_of_the_machinery():
    """What `python -m tfdist_kb.proof.child` loads before the snippet: the packages' __init__ files and
    the child, nothing else of the repository (the heavy modules would slow every run, and some need 3.11)."""
    code = ("import sys\n"
            "import tfdist_kb.proof.child\n"
            "print(sorted(m for m in sys.modules if m.startswith(('tfdist_kb', 'tfdist'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['tfdist_kb', 'tfdist_kb.proof', 'tfdist_kb.proof.child']"


# ---------------------------------------------------------------- how tfdist reaches the commands

def test_the_commands_are_declared_as_an_entry_point():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = project["entry-points"]["tfdist.commands"]
    assert declared == {"main": "tfdist_kb.commands.cli:main"}
    from tfdist_kb.commands import cli
    assert callable(cli.main)


def test_the_installed_entry_point_is_this_one():
    """The development install knows the entry point (else `make setup`: pyproject.toml changed)."""
    import tfdist.cli
    entry = tfdist.cli._commands()
    assert entry is not None and entry.value == "tfdist_kb.commands.cli:main", (
        "the installed tfdist-kb declares no tfdist.commands entry point: run `make setup`")


def test_tfdist_hands_a_command_to_whatever_the_entry_point_names(monkeypatch):
    from importlib import metadata

    import tfdist.cli
    seen = []
    fake = metadata.EntryPoint(name="main", value=f"{__name__}:_fake_main", group="tfdist.commands")
    monkeypatch.setitem(globals(), "_fake_main", lambda argv: seen.append(argv) or 7)
    monkeypatch.setattr(metadata, "entry_points", lambda: metadata.EntryPoints([fake]))
    assert tfdist.cli.main(["matrix", "--envs", "default"]) == 7
    assert seen == [["matrix", "--envs", "default"]]


@pytest.mark.parametrize("command, message", [
    ("matrix", "`tfdist matrix` needs the knowledge base repository (its tfdist_kb package); "
               "this installation has `tfdist explain` only"),
    ("frobnicate", "unknown command 'frobnicate'; this installation has `tfdist explain` only"),
])
def test_without_the_entry_point_one_line_says_so(monkeypatch, capsys, command, message):
    from importlib import metadata

    import tfdist.cli
    monkeypatch.setattr(metadata, "entry_points", lambda: metadata.EntryPoints([]))
    assert tfdist.cli.main([command]) == 2
    assert capsys.readouterr().err.strip().endswith(message)
