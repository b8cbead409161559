"""MkDocs hooks: the navigation from the registry, and the files the site publishes besides its
pages: the generated notebooks (before mkdocs-jupyter renders them), `errors.json` (the error
index for machines), the evidence and the environments' lock files."""
from __future__ import annotations

import atexit
import os
import posixpath
import re
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import mkdocs.plugins
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from tfdist_kb.proof import envs, evidence
from tfdist_kb.site import errors, i18n, macros, notebooks, pages, registry, wheel
from tfdist_kb.site.i18n import t

_OUT: Path | None = None  # errors.json and the search script of the build under way


def _new_out() -> Path:
    """A temporary folder for the files this build publishes besides its pages; it goes when the
    build ends (copied into the site by then), fails, or the process exits (`mkdocs serve`)."""
    global _OUT
    _remove_out()
    _OUT = Path(tempfile.mkdtemp(prefix="tfdist-site-files-"))
    return _OUT


def _remove_out() -> None:
    global _OUT
    if _OUT is not None:
        shutil.rmtree(_OUT, ignore_errors=True)
        _OUT = None


atexit.register(_remove_out)


def on_post_build(config):
    _remove_out()


def on_build_error(error):
    _remove_out()


def on_config(config):
    """The navigation: home, the published entries in ID order, then the reference pages. A corrupt
    evidence file stops the build here, with one line naming it (not a traceback from a page)."""
    try:
        evidence.load()
    except evidence.EvidenceError as error:
        raise PluginError(str(error)) from None
    questions = [f"e/{e.id}.md" for e in registry.load().values() if e.status == "published"]
    config["nav"] = [
        {"Home": "index.md"},
        {"Questions": questions},
        "errors.md",
        "coverage.md",
        "doctor.md",
        {"Evidence": ["evidence.md", "verification.md"]},
        "tags.md",
        "contributing.md",
    ]
    return config


def on_nav(nav, config, files):
    """Each entry in the navigation (and the contents of the PDF) as its ID and its short title in
    the page's language, `TFD001 · Optimizer slot variables and their strategy`, from the front
    matter's `short:`; the full question stays the page's heading. A missing one stops the build."""
    for page in nav.pages:
        if not re.fullmatch(r"e/TFD\d{3}(?:\.\w+)?\.md", page.file.src_uri):
            continue
        meta, _ = registry.front_matter(Path(page.file.abs_src_path))
        if not meta.get("short"):
            raise PluginError(f"{page.file.src_uri}: no `short:` in its front matter (the navigation's title)")
        page.title = f"{meta['id']} · {meta['short']}"
    return nav


# After mkdocs-static-i18n (-100) has picked each language's files: it drops documentation pages
# from outside docs/ ("Unhandled file case"), so the notebooks are added here, already wrapped as
# mkdocs-jupyter pages. The other files published here are plain assets; i18n passes those as they are.
@mkdocs.plugins.event_priority(-200)
def on_files(files, config):
    def publish(path: str, src_dir) -> None:
        files.append(File(path, str(src_dir), config["site_dir"], config["use_directory_urls"]))

    _publish_notebooks(files, config)
    index = errors.build(config["site_url"])
    out = _new_out()
    (out / "errors.json").write_text(errors.dumps(index), encoding="utf-8")
    publish("errors.json", out)
    for path in wheel.publish(errors.dumps(index), out):  # the tfdist package, its data this site's index
        publish(path, out)
    script = out / errors.SEARCH_SCRIPT
    script.parent.mkdir(parents=True, exist_ok=True)
    # the offline variant has no directory URLs: its signatures name e/TFD001.html, as its search index does
    script.write_text(errors.search_script(index, config["use_directory_urls"]), encoding="utf-8")
    publish(errors.SEARCH_SCRIPT, out)
    publish(evidence.PATH.name, evidence.PATH.parent)
    for env in envs.load():
        publish(f"envs/{env.lock.name}", env.lock.parent.parent)
    return files


def on_page_markdown(markdown, page, config, files):
    """Show an entry's permanent ID under its title (the ID lives in the front matter only), and
    end the entry with how to run it."""
    i18n.set_language(i18n.page_language(page))
    if page.meta.get("tags"):  # before Material's tags plugin reads them: the tags in the page's language
        page.meta["tags"] = [i18n.tag_name(tag, i18n.language()) for tag in page.meta["tags"]]
    markdown = pages.mark_fences(markdown)  # each code block's kind, for the rendered audit (pages.BLOCK_KINDS)
    if "print-site" in config["plugins"] and "<!-- material/tags -->" in markdown:
        # the PDF's tags page: Material fills its listing after print-site has copied the page
        markdown = markdown.replace("<!-- material/tags -->", _tags_listing(i18n.language()))
    entry_id = page.meta.get("id")
    if not entry_id:
        return markdown
    badge = f'\n<p class="tfd-id">{t("entry_badge", id=entry_id)}</p>\n'
    if page.meta.get("fix"):  # the one-line fix, first thing under the title (and in the PDF)
        badge += f'\n**{t("fix_lead")}** {page.meta["fix"].strip()}\n{{: .tfd-fix }}\n'
    markdown = re.sub(r"^# .*$", lambda m: m.group(0) + "\n" + badge, markdown, count=1, flags=re.MULTILINE)
    entry = registry.load().get(entry_id)
    notebook = files.get_file_from_path(f"notebooks/{entry_id}.ipynb") if entry and entry.snippets else None
    if notebook is not None:
        # the rendered page through its source (mkdocs checks the link), and the raw file that
        # mkdocs-jupyter's include_source copies next to it, as a plain download
        raw = get_relative_url(posixpath.join(posixpath.dirname(notebook.dest_uri), f"{entry_id}.ipynb"),
                               page.file.url)
        download = (f'<a href="{raw}" download="{entry_id}.ipynb" type="application/x-ipynb+json">'
                    f'{t("download_notebook", file=f"{entry_id}.ipynb")}</a>')
        markdown += t("run_yourself", id=entry_id, env=macros.environment(envs.default().name),
                      env_span=macros._env(envs.default().name, "span"), download=download,
                      notebook=f"[{t('read_notebook')}](../notebooks/{entry_id}.ipynb)")
    return markdown


def _tags_listing(lang: str) -> str:
    """Each tag of the vocabulary that an entry uses, with its entries (ID and short title), as
    Markdown: what the tags page lists, written where Material's placeholder would stay raw."""
    by_tag: dict[str, list[str]] = {}
    for entry in registry.load().values():
        if entry.status != "published":
            continue
        page = entry.page if lang == i18n.DEFAULT else entry.page.with_name(f"{entry.id}.{lang}.md")
        meta = registry.front_matter(page)[0]
        for tag in meta.get("tags") or ():
            by_tag.setdefault(tag, []).append(f"- [{entry.id} · {meta.get('short', entry.title)}](e/{entry.id}.md)")
    return "\n\n".join(f"## {i18n.tag_name(tag, lang)}\n\n" + "\n".join(by_tag[tag])
                       for tag in registry.TAGS if tag in by_tag) + "\n"


# ---- the generated notebooks ------------------------------------------------------------------

_BACKLINKS: dict[str, tuple[str, str]] = {}  # notebook page url -> (absolute entry url, entry src)


def _language(config) -> str:
    plugin = config.plugins.get("i18n")
    return getattr(plugin, "current_language", None) or i18n.DEFAULT


def _entry_path(entry_id: str, lang: str, config) -> str:
    page = f"e/{entry_id}/" if config["use_directory_urls"] else f"e/{entry_id}.html"
    return page if lang == i18n.DEFAULT else f"{lang}/{page}"


def _publish_notebooks(files, config) -> None:
    """Write every language's notebooks to a stable folder (notebooks.OUT/LANG; unchanged ones
    keep their bytes), publish this build's language as mkdocs-jupyter pages (the raw .ipynb is
    copied next to each page by include_source), and keep mkdocs-jupyter's cache entries of the
    other language: each language's build would otherwise evict the other's on post_build."""
    from mkdocs_jupyter.plugin import NotebookFile

    lang = _language(config)
    base = config["site_url"] or "/"
    base = base.rstrip("/") + "/"
    jupyter = config.plugins.get("mkdocs-jupyter")
    keep = set()
    for language in i18n.LANGUAGES:
        urls = {e.id: base + _entry_path(e.id, language, config) for e in notebooks.published()}
        paths = notebooks.write_all(notebooks.OUT / language / "notebooks", language, urls)
        if jupyter is not None:
            try:
                from mkdocs_jupyter.plugin import _compute_cache_key, _get_cache_path

                keep |= {_get_cache_path(jupyter.config["cache_dir"],
                                         _compute_cache_key(str(p), jupyter.config, jupyter.config["execute"]))
                         for p in paths}
            except (ImportError, AttributeError, KeyError):  # another mkdocs-jupyter: only the cache suffers
                pass
        if language != lang:
            continue
        for path in paths:
            plain = File(f"notebooks/{path.name}", str(path.parent.parent), config["site_dir"],
                         config["use_directory_urls"])
            page = NotebookFile(plain, use_directory_urls=config["use_directory_urls"], site_dir=config["site_dir"])
            url = page.url  # notebooks/ID/ in the default language
            if lang != i18n.DEFAULT:
                page.dest_uri = f"{lang}/{page.dest_uri}"
                page.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], page.dest_uri))
                page.url = f"{lang}/{url}"
            # what mkdocs-static-i18n gives its own pages: the language, and the same page in the others
            page.locale = page.locale_alternate_of = lang
            page.localization = None if lang == i18n.DEFAULT else lang
            page.alternates = {other: SimpleNamespace(url=url if other == i18n.DEFAULT else f"{other}/{url}")
                               for other in i18n.LANGUAGES}
            _BACKLINKS[page.url] = (urls[path.stem], f"e/{path.stem}.md")
            files.append(page)
    used = getattr(jupyter, "_used_cache_paths", None)
    if isinstance(used, set):
        used |= keep


def on_pre_page(page, config, files):
    """A notebook page's source is JSON, not Markdown: recorded messages in its outputs hold `{{`,
    which mkdocs-macros would read as Jinja. mkdocs-jupyter renders the page from the file itself,
    so the Markdown source read here is left empty."""
    if page.file.url in _BACKLINKS:
        def read_source(self, config):
            self.markdown, self.meta = "", {"render_macros": False}
        page.read_source = read_source.__get__(page)
    return page


# What nbconvert's page template adds for notebooks with math or Mermaid diagrams (ours have
# neither): a MathJax <script src=""> (which fetches the page itself as a script) and a module
# that imports Mermaid from a public CDN.
_NOTEBOOK_SCRIPTS = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
                               r'|<script type="module">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>', re.DOTALL)


_NOTEBOOK_CODE = re.compile(r'<(pre|div class="clipboard-copy-txt")(?=[\s>])')


def _mark_notebook_code(html: str) -> str:
    """Every code block of a generated notebook's page (its cells' code, the copy-button text, the
    recorded outputs) is marked as such for the rendered audit (pages.BLOCK_KINDS["notebook"]): the
    notebook is built from the snippets and the evidence only; its Markdown cells stay audited."""
    return _NOTEBOOK_CODE.sub(lambda m: f'<{m.group(1)} {pages.BLOCK_ATTRIBUTE}="notebook"', html)


def on_page_content(html, page, config, files):
    """A notebook links back to its entry by absolute address (it is read outside the site too);
    on its rendered page that link becomes relative, so a mirror or a local copy stays in itself.
    The rendered page loads nothing from elsewhere."""
    link = _BACKLINKS.get(page.file.url)
    if link is None:
        return html
    html = _NOTEBOOK_SCRIPTS.sub("", html)
    html = _mark_notebook_code(html)
    absolute, src = link
    entry = files.get_file_from_path(src)
    if entry is None:
        return html
    return html.replace(f'href="{absolute}"', f'href="{get_relative_url(entry.url, page.file.url)}"')


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


_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def on_post_page(output, page, config):
    """Drop the per-page `<link rel="alternate" hreflang>` lines the i18n plugin puts in <head>:
    Material fetches `sitemap.xml` under each of them (`/e/TFD001/sitemap.xml`), a 404 and a
    console error on every page. The language switch in the header links each page to itself in
    the other language without them."""
    head, sep, body = output.partition("</head>")
    return _ALTERNATE.sub("", head) + sep + body
