"""MkDocs hooks: add the generated notebooks to the site before mkdocs-jupyter renders them."""
from __future__ import annotations

import tempfile
from pathlib import Path

import mkdocs.plugins
from mkdocs.structure.files import File

from tfdist_kb import notebooks, registry

_OUT = Path(tempfile.mkdtemp(prefix="tfdist-notebooks-"))


def on_config(config):
    """The navigation: home, the published entries in ID order, then the reference pages."""
    questions = [f"e/{e.id}.md" for e in registry.load().values() if e.status == "published"]
    config["nav"] = [
        {"Home": "index.md"},
        {"Questions": questions},
        {"Evidence": ["evidence.md", "verification.md"]},
        "tags.md",
        "contributing.md",
    ]
    return config


@mkdocs.plugins.event_priority(100)  # before mkdocs-jupyter wraps .ipynb files
def on_files(files, config):
    for path in notebooks.write_all(_OUT / "notebooks"):
        files.append(File(f"notebooks/{path.name}", str(_OUT), config["site_dir"], config["use_directory_urls"]))
    return files
