"""MkDocs hook: each code line knows how far it is indented, so that a line too long for a phone (or
for paper) wraps under its own indentation plus 4 columns, not back at column 0.

pymdownx.highlight puts every line of a code block in a span of its own (`line_spans: __span` in
mkdocs.yml). This gives each indented line's span `--tfd-indent` (its leading spaces), read by the
hanging indent of extra.css (screens up to 44.9375em) and print.css (paper), and keeps the
indentation together with the line's first character (`<span class="tfd-nobreak">`, never wrapped):
a first word longer than the rest of the line would otherwise leave a line made of the indentation
alone above it. A line indented deeper than DEEP columns (more than half of what a 390 px phone
shows) is also of class `tfd-deep`: on a phone its indentation may wrap (it alone could be wider
than the screen). The text of a line, and so what the copy button copies, is unchanged.

It also makes the page lighter to lay out: Pygments wraps every name (`n`) and every run of
whitespace (`w`) in a span of its own, drawn exactly as the code's own text (Material colours `.n`
with `--md-code-hl-name-color`, which is `--md-code-fg-color`; `.w` has no style). Those spans are
a quarter of an entry page's elements; their text stays, unwrapped (issue 21: Lighthouse's style and
layout time grows with the element count). For the same reason a line of 1 to SHORT characters
loses its own span: it fits a 390 px phone (about 41 columns of code there, in a note too) and paper
as it is, so it never wraps and has no indentation to keep. (A blank line keeps its span: on a
phone each line's span is a full-width inline block, and a bare line break after one would only end
that block's line, so the blank line would vanish.)
"""
from __future__ import annotations

import re

import mkdocs.plugins

# A line: its span, then what it holds up to the next line or the end of the block.
LINE = re.compile(r'<span id="(__span-[\d-]+)">(.*?)</span>(?=<span id="__span-|</code>)', re.DOTALL)
# What a line holds: an anchor (pymdownx's anchor_linenums, if set), Pygments' token spans (never
# nested), bare text.
PART = re.compile(r'(<a [^>]*></a>)|<span class="([^"]*)">([^<]*)</span>|([^<]+)|(<[^>]*>)')
PLAIN = re.compile(r'<span class="[nw]">([^<]*)</span>')  # a name or whitespace token: drawn as bare text
CHARACTER = re.compile(r"&[#\w]+;|.", re.DOTALL)  # a character entity is one character
DEEP = 20
SHORT = 32
TAG = re.compile(r"<[^>]*>")


def _mark(line: str, inner: str) -> str:
    parts = list(PART.finditer(inner))
    if "".join(p.group(0) for p in parts) != inner:
        return f'<span id="{line}">{inner}</span>'
    head, spaces = [], 0
    for n, part in enumerate(parts):
        anchor, token, token_text, bare, other = part.groups()
        if anchor is not None:
            if spaces:  # an anchor after the indentation: not a line's shape this knows
                break
            head.append(("anchor", anchor))
            continue
        if other is not None:
            break
        text = token_text if token is not None else bare
        stripped = text.lstrip(" ")
        if not stripped:
            spaces += len(text)
            head.append(("part", part.group(0)))
            continue
        if not spaces and len(stripped) == len(text):
            break  # not indented
        indent = spaces + len(text) - len(stripped)
        first = CHARACTER.match(stripped).group(0)
        rest = stripped[len(first):]
        kept = text[:len(text) - len(stripped)] + first
        anchors = "".join(value for kind, value in head if kind == "anchor")
        indentation = "".join(value for kind, value in head if kind == "part")
        if token is not None:
            kept, rest = f'<span class="{token}">{kept}</span>', (f'<span class="{token}">{rest}</span>' if rest else "")
        tail = "".join(p.group(0) for p in parts[n + 1:])
        deep = ' class="tfd-deep"' if indent > DEEP else ""
        return (f'<span id="{line}"{deep} style="--tfd-indent:{indent}">{anchors}'
                f'<span class="tfd-nobreak">{indentation}{kept}</span>{rest}{tail}</span>')
    return f'<span id="{line}">{inner}</span>'


def _line(line: str, inner: str) -> str:
    inner = PLAIN.sub(r"\1", inner)
    text = TAG.sub("", inner)
    if text.strip() and len(CHARACTER.findall(text.rstrip("\n"))) <= SHORT:
        return inner
    return _mark(line, inner)


def indent(html: str) -> str:
    """`html` with every indented code line marked (its indentation and first character unbreakable),
    and its name and whitespace tokens as bare text."""
    return LINE.sub(lambda found: _line(found.group(1), found.group(2)), html)


@mkdocs.plugins.event_priority(50)  # before the print-site plugin keeps each page's HTML for the PDF
def on_page_content(html: str, page, config, files) -> str:
    return indent(html) if "__span-" in html else html
