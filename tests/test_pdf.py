"""`make pdf`: one PDF per language, checked through what poppler reads back from it (pdftotext,
pdfinfo, pdftohtml), against the sources rather than against what tfdist_kb.site.pdf says it did.

Every page title is printed and in the outline, every entry's ID and permanent address are on the
entry's first page (the outline and the table of contents point there), every fenced code block of
the docs and every snippet section the pages include is printed line by line, the content of every
<details> fold is printed, internal links jump to destinations that exist, no word lies outside the
printable width, Chinese is set in a Simplified Chinese font. The PDFs are built once for the module
(`make pdf`'s own function); their page counts are printed and recorded as test properties. They are
built as CI publishes them, at a published address (TFDIST_BASE_URL): the cover and every link that
leaves a PDF name that address, never the local one.
"""
from __future__ import annotations

import html
import html.parser
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
import yaml

from tfdist_kb.site import errors, pages, pdf, registry

ROOT = registry.ROOT
DOCS = ROOT / "docs"
SNIPPET_DIRS = [ROOT / "snippets", ROOT / "tfdist_kb" / "proof"]  # mkdocs.yml pymdownx.snippets base_path
A4_POINTS = (595.92, 842.88)
MM = 72 / 25.4


PUBLISHED = "https://kb.example.org/tfdist-kb/"  # made up: what CI's TFDIST_BASE_URL gives


@pytest.fixture(scope="module")
def published_address():
    """The PDFs' build and these checks (errors.base_url()) both at the published address."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(errors.BASE_URL_VARIABLE, PUBLISHED)
        yield PUBLISHED


@pytest.fixture(scope="module")
def books(tmp_path_factory, published_address):
    """The PDFs, built once; $TFDIST_KB_PDF names a folder an earlier run of this fixture left (the
    PDFs, their report and work/) to check again without printing (a quicker loop)."""
    if os.environ.get("TFDIST_KB_PDF"):
        out = Path(os.environ["TFDIST_KB_PDF"]).resolve()
    else:  # as `make pdf` does, in its own process (Playwright's sync API allows one per process)
        out = tmp_path_factory.mktemp("pdf")
        run = subprocess.run([sys.executable, "-m", "tfdist_kb.site.pdf", "--out", str(out), "--work", str(out / "work")],
                             cwd=pdf.ROOT, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    built = {b["lang"]: pdf.Book(**b) for b in json.loads((out / pdf.REPORT).read_text())["books"]}
    return {lang: (out / book.pdf, book, out / "work" / f"site-{lang}") for lang, book in built.items()}


def _run(*command) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def squash(text: str) -> str:
    """Text without any whitespace: line wrapping and page breaks put their own."""
    return re.sub(r"\s+", "", html.unescape(text))


_texts: dict = {}


def pages_text(path: Path, mode: str = "-raw") -> list[str]:
    """The text of each page without the footer (page numbers): in the order it was drawn (-raw),
    as laid out on the page (-layout) or in poppler's reading order ("")."""
    if (path, mode) not in _texts:
        height = round(A4_POINTS[1] - pdf.MARGIN_MM["bottom"] * MM)
        text = _run("pdftotext", *([mode] if mode else []), "-x", "0", "-y", "0", "-W", str(round(A4_POINTS[0])),
                    "-H", str(height), str(path), "-")
        _texts[(path, mode)] = text.split("\f")[:-1]
    return _texts[(path, mode)]


def printed_text(path: Path) -> list[str]:
    """The whole text, squashed, once per way of reading it: a line that wraps across a page, or
    sits in a table cell, reads whole in at least one of them."""
    return [squash("".join(pages_text(path, mode))) for mode in ("-raw", "-layout", "")]


def outline(path: Path) -> list[tuple[str, int]]:
    xml = _run("pdftohtml", "-xml", "-i", "-q", "-stdout", "-f", "1", "-l", "1", str(path))
    return [(html.unescape(title), int(page)) for page, title in re.findall(r'<item page="(\d+)">(.*?)</item>', xml)]


# --- what the sources say should be printed ------------------------------------------------------

def nav_pages() -> list[str]:
    """The pages of the site's navigation (built by the hooks from the registry), in order."""
    from tfdist_kb.site import mkdocs_hooks

    found = []

    def walk(item):
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(mkdocs_hooks.on_config({"nav": None})["nav"])
    return [page for page in found if page.endswith(".md")]


def source(page: str, lang: str) -> Path:
    """The file a language's page is built from: `X.zh.md`, falling back to `X.md`."""
    own = DOCS / page.replace(".md", f".{lang}.md")
    return own if lang != "en" and own.exists() else DOCS / page


def body(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    return (yaml.safe_load(match.group(1)) or {}, text[match.end():]) if match else ({}, text)


def title(path: Path) -> str:
    meta, text = body(path)
    heading = re.search(r"^# (.+)$", text, re.MULTILINE)
    raw = heading.group(1) if heading else meta.get("title", "")
    return re.sub(r"`|\*\*|\{:.*?\}", "", raw).strip()


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
INCLUDE = re.compile(r"""^\s*--8<--\s+["']([^"':]+)(?::([\w-]+))?["']\s*$""")
SECTION_MARK = re.compile(r"--8<--\s*\[(?:start|end):[\w-]+\]")


def snippet(target: str, section: str | None) -> str:
    path = next(d / target for d in SNIPPET_DIRS if (d / target).exists())
    lines = path.read_text(encoding="utf-8").splitlines()
    if section:
        start = next(i for i, line in enumerate(lines) if re.search(rf"--8<--\s*\[start:{section}\]", line))
        end = next(i for i, line in enumerate(lines) if re.search(rf"--8<--\s*\[end:{section}\]", line))
        lines = lines[start + 1:end]
    return "\n".join(line for line in lines if not SECTION_MARK.search(line))


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """(where, code) of every fenced block of a page, includes resolved; diagrams left out."""
    blocks, lines = [], body(path)[1].splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, info = opening.group("indent"), opening.group("fence"), opening.group("info").strip()
        content, i = [], i + 1
        while i < len(lines) and not re.match(rf"^{re.escape(indent)}{fence[0]}{{{len(fence)},}}\s*$", lines[i]):
            content.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        if info.split(" ")[0].lower() == "mermaid":
            continue
        code = []
        for line in content:
            if SECTION_MARK.search(line):  # pymdownx.snippets drops section markers from pages too
                continue
            include = INCLUDE.match(line)
            code.append(snippet(include.group(1), include.group(2)) if include else line)
        blocks.append((f"{path.relative_to(ROOT)} {info or '(plain)'}", "\n".join(code)))
    return blocks


def missing_lines(code: str, printed: list[str]) -> list[str]:
    """The lines of `code` printed nowhere (whitespace aside); lines that macros fill in aside."""
    missing = []
    for line in code.splitlines():
        want = squash(line)
        if want and "{{" not in line and "{%" not in line and not any(want in text for text in printed):
            missing.append(line)
    return missing


class _Details(html.parser.HTMLParser):
    """The text of every outermost <details> of a page. A line ends after each link: the print puts
    the link's address after its text (print-site's add_full_urls), so the text that follows a link
    is printed further on and is looked for on its own. A quotation (<q>) is a line of its own too:
    the browser prints the quotation marks around it, which are not in the page's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.current, self.found = 0, [], []

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.depth += 1
        elif self.depth and tag in ("p", "li", "pre", "br", "tr", "div", "summary", "td", "th", "q"):
            self.current.append("\n")

    def handle_endtag(self, tag):
        if tag == "details" and self.depth:
            self.depth -= 1
            if not self.depth:
                self.found.append("".join(self.current))
                self.current = []
        elif self.depth and tag in ("p", "li", "pre", "summary", "td", "th", "code", "a", "q"):
            self.current.append("\n")

    def handle_data(self, data):
        if self.depth:
            self.current.append(data)


# --- the tests -------------------------------------------------------------------------------------

@pytest.fixture(params=pdf.LANGUAGES)
def lang(request):
    return request.param


def test_one_pdf_per_language_and_its_page_count(books, record_property, capsys):
    counts = {}
    for lang, (path, book, _) in books.items():
        info = _run("pdfinfo", str(path))
        pages = int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))
        assert re.search(r"^Tagged:\s+yes", info, re.MULTILINE), f"{path.name} is not a tagged PDF"
        assert re.search(r"^Page size:\s+595\.9\d? x 842\.8\d? pts \(A4\)", info, re.MULTILINE)
        assert pages == book.pages and pages > len(registry.load())
        counts[lang] = pages
        record_property(f"pages_{lang}", pages)
    report = json.loads((path.parent / pdf.REPORT).read_text())
    assert {b["lang"]: b["pages"] for b in report["books"]} == counts
    with capsys.disabled():
        print(f"\nPDF pages: {counts}; {report['seconds']} s to build and print")


def test_cover_table_of_contents_and_page_numbers(books, lang):
    path, book, _ = books[lang]
    pages = pages_text(path)
    site_name = _site_names()[lang]
    assert squash(site_name) in squash(pages[0]), "the cover names the site"
    assert squash(pdf.site_address(lang)) in squash(pages[0]), "the cover gives the site's address"
    assert squash(pdf.WORDS[lang]["contents"]) in squash(pages[1])
    # the contents run from page 2 up to the page before the first entry (more than one page as entries grow)
    last = max(2, min(e["page"] for e in book.entries.values()) - 1)
    toc = _run("pdftotext", "-layout", "-f", "2", "-l", str(last), str(path), "-").splitlines()
    for entry in _published():
        # the contents name an entry as the navigation does: its ID and its short title (front matter `short`)
        short = body(source(f"e/{entry.id}.md", lang))[0]["short"]
        page, head = book.entries[entry.id]["page"], squash(f"{entry.id} · {short}")[:16]
        assert any(squash(line).startswith(head) and re.search(rf"\s{page}$", line.rstrip()) for line in toc), \
            f"{entry.id}: the table of contents does not give page {page}"
    # every page carries its number in the footer
    footer = _run("pdftotext", "-raw", "-y", str(round(A4_POINTS[1] - pdf.MARGIN_MM["bottom"] * MM)),
                  "-H", str(round(pdf.MARGIN_MM["bottom"] * MM)), "-W", str(round(A4_POINTS[0])), "-x", "0",
                  str(path), "-").split("\f")[:-1]
    assert len(footer) == book.pages
    unnumbered = [n for n, text in enumerate(footer, 1) if f"{n}/{book.pages}" not in squash(text)]
    assert not unnumbered, f"pages without their number: {unnumbered[:10]}"


def words(text: str) -> str:
    """Text with its whitespace as single spaces: how a bookmark should read its heading."""
    return " ".join(text.split())


def test_every_page_title_is_printed_and_in_the_outline(books, lang):
    """A bookmark reads as its heading: not twice over (a heading drawn on two pages), and with the
    space where the heading wraps (Chromium makes bookmarks from the text it drew)."""
    path, _, _ = books[lang]
    printed = squash("".join(pages_text(path)))
    bookmarks = [words(t) for t, _ in outline(path)]
    assert len(bookmarks) > len(nav_pages()), "the PDF has an outline"
    doubled = [mark for mark in bookmarks if len(mark) > 1 and mark[:len(mark) // 2] * 2 == mark]
    assert not doubled, f"bookmarks that read their heading twice: {doubled[:5]}"
    for page in nav_pages():
        wanted = heading(page, lang)
        assert squash(wanted) in printed, f"{page}: title {wanted!r} is not printed"
        assert wanted in bookmarks, f"{page}: title {wanted!r} is not in the outline"


def heading(page: str, lang: str) -> str:
    """A page's heading as printed: an entry's starts with its ID (tfdist_kb.site.pdf)."""
    wanted = words(title(source(page, lang)))
    entry = re.fullmatch(r"e/(TFD\d{3})\.md", page)
    return f"{entry.group(1)} · {wanted}" if entry else wanted


URL = re.compile(r"https?://\S+")


def entry_heading_problems(bookmarks: list[tuple[str, int]], pages: list[str], lang: str) -> list[str]:
    """Each entry's heading (its bookmark: the text Chromium drew for the heading) starts with its ID,
    and the ID is on the entry's first page apart from any address (which also holds the ID)."""
    problems = []
    for entry in _published():
        name = words(title(source(f"e/{entry.id}.md", lang)))
        found = [(words(t), p) for t, p in bookmarks if words(t).endswith(name)]
        if not found:
            problems.append(f"{entry.id}: no bookmark ends with its title {name!r}")
            continue
        mark, page = found[0]
        if not re.match(rf"{entry.id}\b", mark):
            problems.append(f"{entry.id}: its heading {mark!r} does not carry its ID")
        if entry.id not in squash(URL.sub(" ", html.unescape(pages[page - 1]))):
            problems.append(f"{entry.id}: its ID is on page {page} only inside an address")
    return problems


def test_every_entry_has_its_id_and_address_on_its_first_page(books, lang):
    path, book, _ = books[lang]
    pages = pages_text(path)
    marks = {squash(t): p for t, p in outline(path)}
    assert entry_heading_problems(outline(path), pages, lang) == []
    for entry in _published():
        url = errors.base_url() + ("" if lang == "en" else f"{lang}/") + f"e/{entry.id}/"
        wanted_title = squash(heading(f"e/{entry.id}.md", lang))
        page = marks.get(wanted_title)
        assert page, f"{entry.id}: no bookmark for {wanted_title!r}"
        text = squash(pages[page - 1])
        assert wanted_title in text and entry.id in text and squash(url) in text, \
            f"{entry.id}: title, ID or {url} missing on page {page}"
        assert book.entries[entry.id] == {"url": url, "page": page}
        # the one-line fix is printed under the title (its start: a long one runs on)
        fix = squash(body(source(f"e/{entry.id}.md", lang))[0]["fix"].replace("`", ""))
        assert fix[:40] in text, f"{entry.id}: its fix is not on its first page"


def test_the_tags_page_lists_each_entry_under_its_tags(books, lang):
    """The tags page prints its listing (not the theme's placeholder), in the book's language."""
    from tfdist_kb.site import i18n

    path, _, _ = books[lang]
    pages = pages_text(path)
    marks = {squash(t): p for t, p in outline(path)}
    start = marks[squash(title(source("tags.md", lang)))]
    used = {t for e in _published() for t in body(source(f"e/{e.id}.md", lang))[0]["tags"]}
    names = {squash(i18n.tag_name(t, lang)) for t in used}  # the listing's own headings
    end = min([p for t, p in marks.items() if p > start and t not in names] or [start + 1])  # the next page
    text = squash("".join(pages[start - 1:max(end - 1, start)]))
    assert "material/tags" not in text and not re.search(r"tags(\.zh)?\.md:\d", text)
    for tag in used:
        assert squash(i18n.tag_name(tag, lang)) in text, tag
    for entry in _published():
        assert entry.id in text, f"{entry.id} is not on the tags page"


def test_an_entry_heading_that_lost_its_id_is_caught(books, lang):
    """Mutations of a copy of what poppler read back: the heading of one entry without its ID, and
    that page's text with the ID left only inside its address."""
    path, _, _ = books[lang]
    pages, marks = pages_text(path), outline(path)
    entry = _published()[0]
    lost = [(re.sub(rf"^{entry.id}\s*·\s*", "", t), p) for t, p in marks]
    assert any(f"{entry.id}: its heading" in p for p in entry_heading_problems(lost, pages, lang))
    page = next(p for t, p in marks if words(t).startswith(entry.id))
    address_only = list(pages)
    address_only[page - 1] = re.sub(rf"(?<![/A-Za-z0-9_]){entry.id}(?!/)", "", address_only[page - 1])
    assert entry.id in address_only[page - 1]  # still inside the printed address
    assert any(f"{entry.id}: its ID is on page" in p for p in entry_heading_problems(marks, address_only, lang))


def test_every_version_in_the_pdf_is_marked_in_its_html(books, lang):
    """Every version-like token printed (addresses aside) is one that the print page shows inside an
    element a macro marked, a cited quotation or a code block (tfdist_kb.site.pages.marked_tokens); and
    the print page itself passes the rendered audit."""
    from tfdist_kb.site import pages as audit

    path, _, site = books[lang]
    page = (site / "print_page" / "index.html").read_text(encoding="utf-8")
    assert audit.rendered_versions(page) == []
    allowed = audit.marked_tokens(page)
    text = URL.sub(" ", "\n".join(pages_text(path, "-layout")))
    # an address the print wrapped across lines leaves pieces of it ("0.0.1" of 127.0.0.1) behind; a link
    # to a file of the site prints its address (the tfdist wheel's name carries the package's version)
    addresses = " ".join([errors.base_url(), *re.findall(r'href="([^"#]+)', page)])
    unmarked = sorted(t for t in set(audit.version_tokens(text)) - allowed if t not in addresses)
    assert not unmarked, f"printed versions no marked element of the print page shows: {unmarked[:20]}"
    # mutation: a version typed into the printed text is caught
    assert "9.87" in set(audit.version_tokens(text + " fixed in TF 9.87")) - allowed


def test_every_code_block_is_printed(books, lang):
    path, _, _ = books[lang]
    printed = printed_text(path)
    checked, problems = 0, []
    for page in nav_pages():
        for where, code in code_blocks(source(page, lang)):
            checked += 1
            missing = missing_lines(code, printed)
            if missing:
                problems.append(f"{where}: {len(missing)} lines not printed, first {missing[0]!r}")
    assert checked, "no code blocks found in the docs"
    assert not problems, "\n".join(problems)


def test_every_folded_block_is_printed_opened(books, lang):
    """<details>: quoted sources, whole messages, the messages behind outcome cells."""
    path, book, site = books[lang]
    printed = printed_text(path)
    parser = _Details()
    parser.feed((site / "print_page" / "index.html").read_text(encoding="utf-8"))
    assert parser.found and book.links["details_opened"] >= len(parser.found)
    problems = []
    for text in parser.found:
        missing = missing_lines(text, printed)
        if missing:
            problems.append(f"{text.strip()[:60]!r}: {len(missing)} lines not printed, first {missing[0]!r}")
    assert not problems, "\n".join(problems[:20])


def test_internal_links_jump_to_destinations_in_the_pdf(books, lang):
    path, book, _ = books[lang]
    raw = path.read_bytes()
    targets = {re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), name).decode("utf-8")
               for name in re.findall(rb"/Dest\s*/([^\s/<>\[\]()]+)", raw)}
    named = {line.rsplit('"', 2)[1] for line in _run("pdfinfo", "-dests", str(path)).splitlines() if '"' in line}
    named |= {urllib.parse.unquote(name) for name in named}
    assert len(targets) > len(_published()), "the table of contents and cross-references link inside the PDF"
    assert not (targets - named), f"links to destinations that do not exist: {sorted(targets - named)[:5]}"
    assert not book.links["broken"]
    # a link that leaves the PDF goes to the published site, or to a cited public report
    uris = [u.decode("latin-1") for u in re.findall(rb"/URI \((.*?)\)>>", raw)]
    assert errors.base_url() == PUBLISHED
    assert [u for u in uris if u.startswith(PUBLISHED)], "the PDF links to its pages on the site"
    assert not [u for u in uris if not (u.startswith(PUBLISHED) or pages.CITED.match(u))], uris


def _layout_lines(path: Path) -> list[tuple[int, float, float, str]]:
    """(page, xMin, yMin, squashed text) of every printed row, top to bottom: the words poppler finds
    at the same height, left to right (a comment in another colour is a line of its own to poppler)."""
    boxes = _run("pdftotext", "-bbox", str(path), "-")
    found = []
    for number, page in enumerate(re.findall(r"<page .*?</page>", boxes, re.DOTALL), 1):
        words = sorted((float(y0) + float(y1), float(x0), html.unescape(word)) for x0, y0, y1, word in
                       re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(.*?)</word>', page))
        rows: list[list[tuple[float, float, str]]] = []
        for word in words:  # heights within 3 points (an italic comment sits a little higher): one row
            if rows and word[0] - rows[-1][0][0] < 6:
                rows[-1].append(word)
            else:
                rows.append([word])
        for row in rows:
            row.sort(key=lambda w: w[1])
            found.append((number, row[0][1], row[0][0] / 2, squash("".join(w for _, _, w in row))))
    return found


def test_no_page_is_left_half_blank_inside_a_page(books, lang):
    """A page that the next page continues (it does not start a page of the site) is at least half
    full: a table, listing or fold too tall for what is left of a page continues on the next one
    instead of leaving the rest blank (outcome tables used to move whole: 65 pages in English were
    less than 60% full, down to 7%; a listing did not break either, the theme lays its lines out
    as a grid, which print.css makes a plain block on paper)."""
    path, _, _ = books[lang]
    starts = {page for _, page in outline(path)}
    top, bottom = pdf.MARGIN_MM["top"] * MM, A4_POINTS[1] - pdf.MARGIN_MM["bottom"] * MM
    lowest: dict[int, float] = {}
    pages = re.findall(r"<page .*?</page>", _run("pdftotext", "-bbox", str(path), "-"), re.DOTALL)
    for number, page in enumerate(pages, 1):  # the footer (page number) lies below the bottom margin
        lowest[number] = max([y for y in map(float, re.findall(r'yMax="([\d.]+)"', page)) if y < bottom] or [top])
    blank = [(n, f"{(lowest[n] - top) / (bottom - top):.0%} full") for n in range(1, len(pages))
             if n + 1 not in starts and (lowest[n] - top) / (bottom - top) < 1 / 2]
    assert len(pages) > 10 and not blank, f"pages less than half full before a page that continues them: {blank[:10]}"


def test_a_long_code_line_wraps_under_its_indentation(books, lang):
    """A code line too long for the page goes on under its own indentation (further in than where
    the line starts), not back at the left edge of the listing, where it would read as a new line."""
    path, _, _ = books[lang]
    lines = _layout_lines(path)
    by_start: dict[str, list[int]] = {}
    for i, (_, _, _, text) in enumerate(lines):
        by_start.setdefault(text[:24], []).append(i)
    checked, wrong = 0, []
    for page in nav_pages():
        for where, code in code_blocks(source(page, lang)):
            for line in code.splitlines():
                want = squash(line)
                if len(want) < 60 or "{{" in line:
                    continue
                for i in by_start.get(want[:24], []):
                    first, rest = lines[i], lines[i + 1] if i + 1 < len(lines) else None
                    if not (rest and first[0] == rest[0] and rest[2] > first[2] and len(first[3]) < len(want) and want.startswith(first[3])
                            and want.startswith(first[3] + rest[3][:10]) and rest[3]):
                        continue  # printed whole on one line, or not this line
                    checked += 1
                    if rest[1] <= first[1] + 1:
                        wrong.append(f"{where}: {line.strip()[:50]!r} goes on at x={rest[1]:.0f}, left of where "
                                     f"it starts (x={first[1]:.0f})")
    assert checked, "no code line long enough to wrap was found printed"
    assert not wrong, f"{len(wrong)} wrapped code lines go back to the left edge, e.g.\n" + "\n".join(wrong[:5])


def test_nothing_is_wider_than_the_page(books, lang):
    """No word outside the printable width: tables and code wrap or shrink (clipped text would still
    be in the PDF, outside the margin)."""
    path, book, _ = books[lang]
    boxes = _run("pdftotext", "-bbox", str(path), "-")
    left, right = pdf.MARGIN_MM["left"] * MM - 2, A4_POINTS[0] - pdf.MARGIN_MM["right"] * MM + 2
    outside = [(html.unescape(word), float(x0), float(x1)) for x0, x1, word in
               re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">(.*?)</word>', boxes)
               if float(x0) < left or float(x1) > right]
    assert not outside, f"{len(outside)} words outside the printable width, e.g. {outside[:5]}"
    assert not book.fit["overflowing"]


def test_chinese_is_set_in_simplified_chinese_fonts(books):
    path, book, _ = books["zh"]
    assert set(book.fonts) == {"cover", "entry"}, book.fonts
    for where, families in book.fonts.items():
        assert any(family in pdf.CJK_SC for family in families), f"{where}: {families}"
    assert re.search(r"[\u4e00-\u9fff]", pages_text(path)[0]), "the cover is in Chinese"


# --- helpers reading the config --------------------------------------------------------------------

def _published():
    return [e for e in registry.load().values() if e.status == "published"]


def _site_names() -> dict[str, str]:
    config = pdf._raw_config()
    names = {"en": config["site_name"]}
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "i18n" in plugin:
            for language in plugin["i18n"]["languages"]:
                names[language["locale"]] = language.get("site_name") or config["site_name"]
    return names


def test_poppler_reads_it_without_a_warning(books, lang):
    """No syntax warning from poppler (a destination named by a long Chinese heading's id used to
    exceed the 127 bytes a PDF name may have: "name token is longer than ...")."""
    path, _, _ = books[lang]
    run = subprocess.run(["pdftotext", str(path), "/dev/null"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stderr.strip() == "", run.stderr[:500]
