"""Text sent compressed, as a real host sends it: one rule for `make serve` and `make bench`.

As an MkDocs hook (`on_serve`), it wraps the development server of `make serve` (`mkdocs serve`,
which compresses nothing) so that pages, scripts, styles and the search index travel gzip-compressed
to a browser that accepts it; `tfdist_kb.commands.sitebench` serves the built site with the same rule.
The live-reload requests pass untouched (they wait for the next build).
"""
from __future__ import annotations

import gzip

COMPRESSIBLE = ("text/", "application/json", "application/javascript", "application/xml", "image/svg+xml")
SMALLEST = 1024  # bytes: below this the gzip header costs more than it saves


def compress(body: bytes, content_type: str, accept_encoding: str) -> tuple[bytes, list[tuple[str, str]]]:
    """`body` as it is sent for a request that accepts `accept_encoding`, and the headers that say so."""
    if len(body) < SMALLEST or not content_type.startswith(COMPRESSIBLE) or "gzip" not in accept_encoding:
        return body, []
    return gzip.compress(body, 6), [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]


def on_serve(server, config, builder):
    """Wrap the WSGI application of MkDocs' development server in compress()."""
    application = server.get_app()

    def compressed(environ, start_response):
        if environ.get("PATH_INFO", "").startswith("/livereload/"):
            return application(environ, start_response)
        seen = {}

        def keep(status, headers, exc_info=None):
            seen["status"], seen["headers"] = status, headers
            return lambda data: None

        result = application(environ, keep)
        try:
            body = b"".join(result)
        finally:
            getattr(result, "close", lambda: None)()
        headers = [(k, v) for k, v in seen["headers"] if k.lower() != "content-length"]
        kind = next((v for k, v in headers if k.lower() == "content-type"), "")
        if seen["status"].startswith("200"):
            body, extra = compress(body, kind, environ.get("HTTP_ACCEPT_ENCODING", ""))
            headers += extra
        start_response(seen["status"], headers + [("Content-Length", str(len(body)))])
        return [body]

    server.set_app(compressed)
    return server
