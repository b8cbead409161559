"""The one error matcher: which entries of the knowledge base answer a piece of text.

Used by `tfdist explain`, `tfdist.install()`/`lookup()`/`annotate()` and by the knowledge base's
machinery (`tfdist_kb`), which builds the data file this module reads. Standard library only,
Python 3.7 and later.

Text is first normalised (`normalise`); every signature of every *published* entry is a Python
regular expression searched in the normalised text, case-insensitively. Scoring (`literal_score`,
`match`):

* a signature's score is the number of literal characters a match of it must contain: every
  plain character and every escaped punctuation character (`\\.`, `\\(`) counts 1; character
  classes (`[...]`, `\\d`, `\\w`, `.`), anchors, group syntax and quantifiers count 0; a piece
  under a quantifier that allows zero repeats (`?`, `*`, `{0,n}`) counts 0, one under `+` or
  `{m,n}` counts once; an alternation counts its smallest branch; a negative lookaround, a
  backreference and a conditional group count 0; `(?#...)` comments count 0;
* an entry's score is the best score among its signatures that match, plus 1 for each further
  signature that matches; signatures whose score is 0 are ignored (they prove nothing);
* results are the entries with a score above 0, root cause first (`where`): an entry matched in an
  error ranks before one matched only in a warning or log line, and, in a chain of exceptions
  (`During handling of the above exception, another exception occurred`, `The above exception was
  the direct cause of the following exception`), one matched in an earlier exception before one
  matched only in a later; then best score first, ties broken by ID.

What a signature may name: the whole text is searched, not only the exception's message, so a
signature may name traceback frames (a file and its function, in every style a traceback prints:
`File ".../slot_creator.py", line 132, in create_slot`, TF 1's `.../slot_creator.py:132
create_slot`, IPython's `File ~/.../slot_creator.py:132, in create_slot(...)`: written
`slot_creator\\.py\\W+(?:line )?\\d+\\W+(?:in )?create_slot`), source lines a notebook traceback
shows (`--> 303 raise RuntimeError(`), and warning or log lines (`W tensorflow/...cc:NNN] ...`,
`WARNING:tensorflow:...`). A paste cut mid-message or missing its last line links through the part
that is there (the frames, the first words of the message). A signature that must not answer a paste
naming something else starts with `^(?!.*(?:A|B)).*?` (the text is one line once normalised).

Search terms: an entry may also declare `terms`, the words a reader searches it by ("slot
variables", "槽变量"). They answer only a search phrase, not a paste: a text of at most `TERM_TEXT`
characters once normalised, with no error, traceback or log marker in it. A term matches where the
phrase contains it, case-folded (a Latin term as whole words); an entry's term score is the length
of its longest matching term, and entries found by terms come after those found by signatures.

Only the last `MAX_TEXT` characters of the text are matched (a traceback's message is at its end),
so the time spent is bounded whatever the input's size.
"""
from __future__ import annotations

import os
import re

SCHEMA = 1
MAX_TEXT = 200000  # characters; only the end of a longer text is matched
ID_SCORE = 1000  # the score of an entry asked for by its ID
TERM_TEXT = 120  # characters: a longer text is a paste, never matched by search terms
DATA_VARIABLE = "TFDIST_DATA"  # another data file (tests, mirrors)
BASE_URL_VARIABLE = "TFDIST_BASE_URL"  # another site address (a mirror)

ID = re.compile(r"TFD\d{3}\Z", re.IGNORECASE)
ID_LIKE = re.compile(r"TFD[-_ ]?\d*\Z", re.IGNORECASE)


class DataError(Exception):
    """The data file is missing, unreadable or not schema 1."""


class QueryError(ValueError):
    """An ID query that names no entry: malformed (`TFD1`) or unknown (`TFD999`)."""

    def __init__(self, message, known):
        ValueError.__init__(self, message)
        self.known = known


# ---------------------------------------------------------------- normalisation

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)  # markdown quotes, `>>> ` prompts, pytest `>`
_PYTEST_E = re.compile(r"^E(?:[ \t]{2,}|[ \t]*$)", re.MULTILINE)  # pytest's `E   ` lines
_WRAP = re.compile(r"\\[ \t]*\n[ \t]*")  # a line wrapped with a backslash: joined with nothing between
_SPACE = re.compile(r"\s+")
_QUOTES = {ord("\u2018"): "'", ord("\u2019"): "'", ord("\u201c"): '"', ord("\u201d"): '"'}


def normalise(text):
    """The text as signatures see it: ANSI escapes removed; markdown quote markers (`> `, `>> `)
    and pytest's `E   ` prefixes removed at line starts; a backslash at a line's end joins that
    line to the next one's text with nothing between (`tensorf\\` + `    low` -> `tensorflow`);
    typographic quotes made plain; every run of whitespace (newlines too) made one space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    text = _QUOTE.sub("", text)
    text = _PYTEST_E.sub("", text)
    text = _WRAP.sub("", text)
    text = text.translate(_QUOTES)
    return _SPACE.sub(" ", text).strip()


# ---------------------------------------------------------------- scoring

_QUANTIFIER = re.compile(r"(?:[?*+]|\{(\d*)(?:,(\d*))?\})[?+]?")


def _quantifier(pattern, i):
    """(allows zero repeats, index after the quantifier) at `pattern[i]`; (None, i) if none."""
    found = _QUANTIFIER.match(pattern, i)
    if not found:
        return None, i
    text = found.group(0)
    if text[0] == "{":
        if not found.group(1) and found.group(2) is None:  # `{}`: literal braces
            return None, i
        return int(found.group(1) or 0) == 0, found.end()
    return text[0] in "?*", found.end()


def _skip_class(pattern, i):
    """The index after the character class that starts at `pattern[i] == '['`."""
    n = len(pattern)
    i += 1
    if i < n and pattern[i] == "^":
        i += 1
    if i < n and pattern[i] == "]":
        i += 1
    while i < n and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _escape(pattern, i):
    """(score, index after) of the escape at `pattern[i] == '\\'`."""
    n = len(pattern)
    if i + 1 >= n:
        return 0, n
    c = pattern[i + 1]
    if not c.isalnum():
        return 1, i + 2  # escaped punctuation or space: a literal
    if c in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[c]
        return 1, i + 2 + width
    if c == "N" and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 2)
        return 1, (end + 1 if end >= 0 else n)
    if c.isdigit():  # a backreference or an octal escape
        j = i + 1
        while j < n and pattern[j].isdigit():
            j += 1
        return (1 if c == "0" or j - i > 3 else 0), j
    if c in "ntrfva":
        return 1, i + 2
    return 0, i + 2  # \d \w \s \b \A \Z ...: classes and anchors


def _group(pattern, i):
    """(kind, index after the group's opening) for `pattern[i] == '('`. Kinds: 'group' (counts),
    'zero' (its content does not count), 'flags' (`(?i)`, already closed), 'skip' (closed)."""
    n = len(pattern)
    if not pattern.startswith("?", i + 1):
        return "group", i + 1
    j = i + 2
    head = pattern[j:j + 3]
    if head.startswith(":") or head.startswith("="):
        return "group", j + 1
    if head.startswith("<="):
        return "group", j + 2
    if head.startswith("!"):
        return "zero", j + 1
    if head.startswith("<!"):
        return "zero", j + 2
    if head.startswith("#") or head.startswith("P="):
        end = pattern.find(")", j)
        return "skip", (end + 1 if end >= 0 else n)
    if head.startswith("P<") or head.startswith("<"):
        end = pattern.find(">", j)
        return "group", (end + 1 if end >= 0 else n)
    if head.startswith("("):  # (?(id)yes|no)
        end = pattern.find(")", j)
        return "zero", (end + 1 if end >= 0 else n)
    if head.startswith(">"):  # atomic group (3.11)
        return "group", j + 1
    k = j
    while k < n and (pattern[k].isalpha() or pattern[k] == "-"):
        k += 1
    if k < n and pattern[k] == ")":
        return "flags", k + 1
    if k < n and pattern[k] == ":":
        return "group", k + 1
    return "group", k


def _sequence(pattern, i):
    """(score, index) of the alternation starting at `i`, up to an unmatched `)` or the end."""
    n = len(pattern)
    branches = []
    total = 0
    while i < n:
        c = pattern[i]
        if c == ")":
            break
        if c == "|":
            branches.append(total)
            total = 0
            i += 1
            continue
        if c == "(":
            kind, i = _group(pattern, i)
            if kind in ("flags", "skip"):
                if kind == "skip":
                    _, i = _quantifier(pattern, i)
                continue
            inner, i = _sequence(pattern, i)
            if i < n and pattern[i] == ")":
                i += 1
            score = inner if kind == "group" else 0
        elif c == "[":
            score, i = 0, _skip_class(pattern, i)
        elif c == "\\":
            score, i = _escape(pattern, i)
        elif c in ".^$":
            score, i = 0, i + 1
        else:
            score, i = 1, i + 1
        optional, i = _quantifier(pattern, i)
        total += 0 if optional else score
    branches.append(total)
    return min(branches), i


_scores = {}


def literal_score(pattern):
    """The number of literal characters any match of `pattern` must contain (see the module's
    docstring for the rule). Deterministic and the same on every Python version."""
    if pattern not in _scores:
        score, i = _sequence(pattern, 0)
        while i < len(pattern):  # an unmatched `)` (an invalid pattern): count the rest too
            more, i = _sequence(pattern, i + 1)
            score += more
        _scores[pattern] = score
    return _scores[pattern]


# ---------------------------------------------------------------- data

_loaded = {}
_compiled = {}


def data_path(path=None):
    """The data file: `path`, else $TFDIST_DATA, else the file shipped in the package."""
    return (path or os.environ.get(DATA_VARIABLE)
            or os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "errors.json"))


def load(path=None):
    """The error index (schema 1) as a dict, read once per path; DataError if unusable."""
    path = data_path(path)
    if path in _loaded:
        return _loaded[path]
    import json

    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8"))
    except (OSError, ValueError) as error:
        raise DataError("cannot read the error index {}: {}".format(path, error))
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("entries"), list):
        raise DataError("{} is not an error index of schema {}".format(path, SCHEMA))
    _loaded[path] = data
    return data


def base_url(data):
    """The site's address: $TFDIST_BASE_URL, else the data's `base_url`; with a trailing slash."""
    return (os.environ.get(BASE_URL_VARIABLE) or data.get("base_url") or "").rstrip("/") + "/"


def _published(data):
    return [e for e in data["entries"] if isinstance(e, dict) and e.get("status") == "published"]


def _result(entry, base, score, matched):
    return {"id": entry["id"], "title": entry.get("title", ""), "url": base + entry.get("path", ""),
            "tags": list(entry.get("tags") or []), "fix": entry.get("fix", ""), "score": score,
            "matched": matched}


def _pattern(signature):
    compiled = _compiled.get(signature)
    if compiled is None:
        try:
            compiled = re.compile(signature, re.IGNORECASE)
        except (re.error, TypeError, ValueError, OverflowError, RecursionError):
            compiled = False  # an invalid signature matches nothing (`check` reports it)
        _compiled[signature] = compiled
    return compiled


_needs = {}


def required_literal(pattern):
    """The longest run of plain ASCII characters that every match of `pattern` contains (outside
    groups, classes and alternatives; "" when there is no such run or the pattern has a top-level
    `|`): `match` looks for it, case-folded, before running the expression, which is much slower."""
    if pattern in _needs:
        return _needs[pattern]
    runs, run, depth, i, n = [], "", 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        step, char = 1, None
        if c == "\\" and i + 1 < n and not pattern[i + 1].isalnum():
            step, char = 2, pattern[i + 1]
        elif c == "[":
            step = _skip_class(pattern, i) - i
        elif c == "|" and depth == 0:
            runs, run = [], ""
            break
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "\\":
            step = 2
        elif c not in ".^$?*+{}":
            char = c
        optional, after = _quantifier(pattern, i + step)
        if depth == 0 and char is not None and ord(char) < 128 and after == i + step:
            run += char
        else:
            runs.append(run)
            run = ""
        i = max(after, i + step)
    runs.append(run)
    needed = max(runs, key=len).casefold() if depth == 0 else ""
    _needs[pattern] = needed
    return needed


def _data(data):
    return load() if data is None else data


# ---------------------------------------------------------------- where a match lies

# Markers in the normalised text: what follows one, up to the next, is a warning or log line
# (`_LOG`: TensorFlow's I and W lines, `WARNING:`/`INFO:tensorflow:`, a Python warning) or an error
# (`_ERROR`: an exception's `Type:`, a traceback, an op's failure, an error reported in a log line,
# TensorFlow's E and F lines).
_LOG = re.compile(r"\b[IW] ?tensorflow/\S+:\d+\]|\b[IW]\d{4} [\d:.]+ +\d+ \S+:\d+\]"
                  r"|\b(?:WARNING|INFO):tensorflow:|\b[A-Z]\w*Warning:")
_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Exit)\b:|Traceback \(most recent call last\)"
                    r"|OP_REQUIRES failed at|Error reported to Coordinator:"
                    r"|\b[EF] ?tensorflow/\S+:\d+\]|\b[EF]\d{4} [\d:.]+ +\d+ \S+:\d+\]")
_CHAIN = re.compile(r"During handling of the above exception, another exception occurred"
                    r"|The above exception was the direct cause of the following exception")


def _markers(text):
    """[(position, is a log line)] of the markers in `text`, in order, and the chain positions."""
    marks = [(m.start(), 1) for m in _LOG.finditer(text)] + [(m.start(), 0) for m in _ERROR.finditer(text)]
    marks.sort()
    return marks, [m.start() for m in _CHAIN.finditer(text)]


def where(position, markers):
    """(1 if `position` lies in a warning or log line else 0, the number of the exception in a chain
    it lies in, 0 for the first): the rank of a match starting at `position` (see `_markers`)."""
    marks, chain = markers
    log = 0
    for start, is_log in marks:
        if start > position:
            break
        log = is_log
    return log, sum(1 for start in chain if start < position)


def match(text, data=None):
    """Every published entry whose signatures match `text`, root cause first, then best first (see
    the module's docstring), as dicts with `id`, `title`, `url`, `tags`, `fix`, `score`, `matched`
    (the signatures that matched) and `where` (`where` of its first match: [in a log line, exception
    in the chain])."""
    data = _data(data)
    text = normalise(text[-MAX_TEXT:])
    if not text:
        return []
    base = base_url(data)
    folded = text.casefold()
    results = []
    for entry in _published(data):
        matched = []
        starts = []
        for signature in entry.get("signatures") or ():
            compiled = _pattern(signature)
            found = compiled.search(text) if compiled and required_literal(signature) in folded else None
            if found:
                matched.append(signature)
                if literal_score(signature) > 0:
                    starts.append(found.start())
        counted = [literal_score(s) for s in matched if literal_score(s) > 0]
        if counted:
            results.append((starts, _result(entry, base, max(counted) + len(counted) - 1, matched)))
    markers = _markers(text) if len(results) > 1 else ([], [])  # one answer: nothing to order
    for starts, result in results:
        result["where"] = list(min(where(start, markers) for start in starts))
    results.sort(key=lambda item: (item[1]["where"], -item[1]["score"], item[1]["id"]))
    found = [result for _, result in results]
    return found + match_terms(text, data, exclude={r["id"] for r in found})


_terms = {}


def _term(term):
    """A search term as an expression: case-folded; a Latin word or phrase only as whole words."""
    compiled = _terms.get(term)
    if compiled is None:
        folded = normalise(term).casefold()
        edge = "(?<![0-9a-z_])" if re.match(r"[0-9a-z_]", folded) else ""
        tail = "(?![0-9a-z_])" if re.search(r"[0-9a-z_]$", folded) else ""
        compiled = _terms[term] = re.compile(edge + re.escape(folded) + tail) if folded else False
    return compiled


def is_phrase(text):
    """Whether a normalised text is a search phrase (short, no error/traceback/log marker), which
    search terms may answer, rather than a paste."""
    return 0 < len(text) <= TERM_TEXT and not _LOG.search(text) and not _ERROR.search(text)


def match_terms(text, data=None, exclude=()):
    """Entries (not in `exclude`) whose search terms the phrase `text` contains, best first (the
    longest matching term; ties by ID); [] for a text that is not a phrase (`is_phrase`)."""
    data = _data(data)
    text = normalise(text[-MAX_TEXT:])
    if not is_phrase(text):
        return []
    folded, base, found = text.casefold(), base_url(data), []
    for entry in _published(data):
        if entry["id"] in exclude:
            continue
        matched = [t for t in entry.get("terms") or () if isinstance(t, str) and _term(t) and _term(t).search(folded)]
        if matched:
            result = _result(entry, base, max(len(normalise(t)) for t in matched), matched)
            result["where"] = [0, 0]
            found.append(result)
    found.sort(key=lambda r: (-r["score"], r["id"]))
    return found


def best(text, data=None):
    """The best entry for `text` (see `match`), or None."""
    found = match(text, data)
    return found[0] if found else None


def is_id_query(text):
    """Whether `text` looks like an entry ID (well formed or not): `TFD001`, `tfd1`, `TFD9999`."""
    return bool(ID_LIKE.match(text.strip()))


def known_ids(data=None):
    return [e["id"] for e in _published(_data(data))]


def _id_ranges(ids):
    """Entry IDs as a short list: three or more in a row as a range (`TFD001-TFD016, TFD018`), so the
    one-line error stays short however many entries the knowledge base holds."""
    numbers = sorted(int(i[3:]) for i in ids)
    parts, start = [], 0
    for k in range(1, len(numbers) + 1):
        if k == len(numbers) or numbers[k] != numbers[k - 1] + 1:
            run = numbers[start:k]
            if len(run) >= 3:
                parts.append("TFD{:03d}-TFD{:03d}".format(run[0], run[-1]))
            else:
                parts.extend("TFD{:03d}".format(n) for n in run)
            start = k
    return ", ".join(parts)


def by_id(query, data=None):
    """The published entry with this ID (any case) as a result dict with score ID_SCORE;
    QueryError naming the known IDs if the ID is malformed, unknown or retired."""
    data = _data(data)
    wanted = query.strip().upper()
    known = known_ids(data)
    listed = _id_ranges(known) or "none"
    if not ID.match(wanted):
        raise QueryError("{!r} is not an entry ID (TFD followed by three digits); known: {}".format(
            query.strip(), listed), known)
    for entry in data["entries"]:
        if isinstance(entry, dict) and entry.get("id") == wanted:
            if entry.get("status") != "published":
                raise QueryError("{} is retired; known: {}".format(wanted, listed), known)
            return _result(entry, base_url(data), ID_SCORE, [])
    raise QueryError("{} is not a known entry; known: {}".format(wanted, listed), known)


def explain(query, data=None):
    """What `tfdist explain` answers: [the entry] for an ID query (QueryError if it names no
    entry), else `match(query)`."""
    if is_id_query(query):
        return [by_id(query, data)]
    return match(query, data)


def _raised_in(exc):
    """The innermost frame of `exc`'s traceback as Python prints it (its file, line, function and
    source line), or "" where it has none: what names an exception that has no message."""
    import linecache

    tb = exc.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    line = linecache.getline(code.co_filename, tb.tb_lineno).strip()
    return '  File "{}", line {}, in {}\n'.format(code.co_filename, tb.tb_lineno, code.co_name) + (
        "    {}\n".format(line) if line else "")


def exception_text(exc):
    """`Type: message` for an exception and each exception of its `__cause__`/`__context__`
    chain, one per line, the type named as a traceback names it (module-qualified, except for
    builtins and __main__). An exception with no message (a bare `assert`) is named by where it
    was raised: its innermost frame, as Python prints it, comes before its type."""
    lines = []
    seen = set()
    while exc is not None and id(exc) not in seen and len(lines) < 32:
        seen.add(id(exc))
        kind = type(exc)
        module = getattr(kind, "__module__", None)
        name = getattr(kind, "__qualname__", kind.__name__)
        if module not in (None, "builtins", "__main__"):
            name = "{}.{}".format(module, name)
        try:
            message = str(exc)
        except Exception:  # a broken __str__ must not break the caller
            message = ""
        lines.append("{}: {}".format(name, message) if message else _raised_in(exc) + name)
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    return "\n".join(lines)


def check(data):
    """Problems of an error index, as sentences (empty when sound): schema, IDs, fields, and
    every signature compiling and scoring above 0."""
    problems = []
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return ["not an error index of schema {}".format(SCHEMA)]
    if not isinstance(data.get("base_url"), str) or not data["base_url"]:
        problems.append("base_url is missing")
    seen = set()
    for entry in data.get("entries") or []:
        eid = entry.get("id")
        if not isinstance(eid, str) or not ID.match(eid):
            problems.append("{!r} is not an ID".format(eid))
        if eid in seen:
            problems.append("{} appears twice".format(eid))
        seen.add(eid)
        if entry.get("status") not in ("published", "retired"):
            problems.append("{}: status {!r}".format(eid, entry.get("status")))
        for field in ("title", "path"):
            if not isinstance(entry.get(field), str) or not entry[field]:
                problems.append("{}: {} is missing".format(eid, field))
        if entry.get("status") != "published":
            continue
        if not isinstance(entry.get("fix"), str) or not entry["fix"].strip():
            problems.append("{}: fix is missing".format(eid))
        if not isinstance(entry.get("tags"), list):
            problems.append("{}: tags is not a list".format(eid))
        signatures = entry.get("signatures")
        if not isinstance(signatures, list) or not signatures:
            problems.append("{}: no signatures".format(eid))
            continue
        for signature in signatures:
            if not _pattern(signature):
                problems.append("{}: signature {!r} is not a valid regular expression".format(eid, signature))
            elif literal_score(signature) == 0:
                problems.append("{}: signature {!r} has no literal character".format(eid, signature))
    return problems
