"""MkDocs hook for the offline variant (TFDIST_OFFLINE=true: Material's `offline` plugin, a site
that works from file:// with search): serve the iframe-worker shim from the site itself.

Material's offline plugin runs search in an iframe instead of a Web Worker (which file:// forbids)
and, unless `extra.polyfills` already names an iframe-worker shim, adds one from a public CDN. This
hook lists the shim installed by npm (tfdist_kb/site/js, `make setup`) before the plugin looks, and
publishes it with the site. The normal build is left alone: no polyfill, directory URLs.
"""
from __future__ import annotations

import logging
from pathlib import Path

import mkdocs.plugins
from mkdocs.structure.files import File

SHIM = Path(__file__).resolve().parent / "js" / "node_modules" / "iframe-worker" / "shim" / "index.js"
URL = "assets/javascripts/iframe-worker-shim.js"

log = logging.getLogger("mkdocs.plugins.tfdist_kb.site.offline")


def _offline(config) -> bool:
    plugin = config["plugins"].get("material/offline") or config["plugins"].get("offline")
    return bool(plugin and plugin.config.enabled)


@mkdocs.plugins.event_priority(100)  # before the offline plugin's on_config adds its CDN script
def on_config(config):
    if _offline(config):
        config.extra["polyfills"] = [URL] + [p for p in config.extra.get("polyfills", []) if p != URL]
    return config


def on_files(files, config):
    if not _offline(config):
        return files
    if not SHIM.is_file():
        log.warning(f"{SHIM} is missing, the offline build's search will not start: run `make setup`")
        return files
    files.append(File.generated(config, URL, abs_src_path=str(SHIM)))
    return files
