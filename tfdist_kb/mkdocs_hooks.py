"""MkDocs hooks: the navigation from the registry, and the files the site publishes besides its
pages: the generated notebooks (before mkdocs-jupyter renders them), `errors.json` (the error
index for machines), the evidence and the environments' lock files."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import mkdocs.plugins
from mkdocs.structure.files import File

from tfdist_kb import envs, errors, evidence, i18n, notebooks, registry
from tfdist_kb.i18n import t

_OUT = Path(tempfile.mkdtemp(prefix="tfdist-notebooks-"))


def on_config(config):
    """The navigation: home, the published entries in ID order, then the reference pages."""
    questions = [f"e/{e.id}.md" for e in registry.load().values() if e.status == "published"]
    config["nav"] = [
        {"Home": "index.md"},
        {"Questions": questions},
        "errors.md",
        {"Evidence": ["evidence.md", "verification.md"]},
        "tags.md",
        "contributing.md",
    ]
    return config


@mkdocs.plugins.event_priority(100)  # before mkdocs-jupyter wraps .ipynb files
def on_files(files, config):
    def publish(path: str, src_dir) -> None:
        files.append(File(path, str(src_dir), config["site_dir"], config["use_directory_urls"]))

    for path in notebooks.write_all(_OUT / "notebooks"):
        publish(f"notebooks/{path.name}", _OUT)
    (_OUT / "errors.json").write_text(errors.dumps(errors.build(config["site_url"])))
    publish("errors.json", _OUT)
    publish(evidence.PATH.name, evidence.PATH.parent)
    for env in envs.load():
        publish(f"envs/{env.lock.name}", env.lock.parent.parent)
    return files


def on_page_markdown(markdown, page, config, files):
    """Show an entry's permanent ID under its title (the ID lives in the front matter only), and
    end the entry with how to run it."""
    i18n.set_language(i18n.page_language(page))
    entry_id = page.meta.get("id")
    if not entry_id:
        return markdown
    badge = f'\n<p class="tfd-id">{t("entry_badge", id=entry_id)}</p>\n'
    markdown = re.sub(r"^# .*$", lambda m: m.group(0) + "\n" + badge, markdown, count=1, flags=re.MULTILINE)
    entry = registry.load().get(entry_id)
    if entry and entry.snippets:
        markdown += t("run_yourself", id=entry_id, notebook=f"[{entry_id}.ipynb](../notebooks/{entry_id}.ipynb)")
    return markdown


@mkdocs.plugins.event_priority(100)  # before Material's search plugin reads page.meta
def on_page_context(context, page, config, nav):
    """Search ranks entries first: an entry page is boosted; the generated notebooks (the same
    code as their entry) and the evidence table (every message of every entry) are left out."""
    search = page.meta.setdefault("search", {})
    if page.meta.get("id"):
        search.setdefault("boost", 4)
    elif page.file.src_uri.startswith("notebooks/"):
        search["exclude"] = True
    return context
