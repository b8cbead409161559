"""Error messages as the evidence keeps them: normalised, capped, and the line that names the problem.

TensorFlow and Keras often wrap the real error: `in user code:` followed by a traceback of the
traced function and then `ValueError: ...`, or `Graph execution error:` followed by the node's
creation traceback and then the op's own message. The first line says nothing; `headline()`
finds the line that does.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

CAP = 4000  # characters of a whole message kept in the evidence
CHECKOUT = Path(__file__).resolve().parents[2]  # the repository this code runs from, wherever it lives

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
# A path in a temporary folder (Python's `tmpXXXXXXXX`, the runner's scratch `tfdist-XXXXXXXX`, pytest's),
# wherever the machine keeps temporary folders: `/tmp/tfdist-k2j3h4l5/tmp/model.keras` -> `<tmpdir>`
_TMP = re.compile(r"(?<![\w.])/(?:[^\s\"'/]+/)*?(?:tmp[a-z0-9_]{6,}|tfdist-[a-z0-9_]{6,}|pytest-of-[^/\s]+)"
                  r"(?=[/\s'\":)\]]|$)[^\s'\"]*")
# The same scratch folder written relative to the root (TF 2.5's `defined at tmp/tfdist-k2j3h4l5/tmp/x.py:18`)
_TMP_RELATIVE = re.compile(r"(?<![\w./<])(?:[^\s\"'/()]+/)*?tfdist-[a-z0-9_]{6,}/[^\s'\"()]*")
# `ValueError: text`, `tensorflow.python.framework.errors_impl.InvalidArgumentError: text`
_RAISED = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Warning|Exit))\s*:\s*(\S.*)$")
# Lines that frame the message rather than state it
_FRAME = re.compile(
    r"^\s*(in user code:|in converted code:|Graph execution error:|Detected at node\b|defined at \(most recent call last\)|"
    r"File \"|Node: |Call arguments received|Traceback \(most recent call last\)|"
    r"Exception encountered when calling|\[\[\{\{node|\[\[node|\[Op:|Stack trace for|Function call stack:|"
    r"Encountered when executing an operation|<stack traces unavailable>|[-=]{3,}$|\w+_function$)")


# Where the machine keeps Python and the snippets: `/root/.pyenv/versions/3.11.7/lib/python3.11/...`,
# `/work/main/.envs/tf2.15/lib/python3.11/site-packages/...`, `/home/ci/repo/snippets/TFD001/x.py`
# Absolute, or relative to whatever folder TensorFlow chose to shorten them by: TF 2.4 strips the
# common prefix of a traceback's files (`defined at work/main/snippets/TFD004/x.py:82`), TF 1.15's
# AutoGraph prints `relative to /work/main:` and then `.envs/tf1.15/lib/python3.7/...`.
_PATHISH = r"[^\s\"'()\[\]:,<>]"
_PYTHON_PREFIX = re.compile(r"(?<![\w./-])" + _PATHISH + r"*?/(?=lib/python\d\.\d+/)")
# in a traceback's `File "..."` the whole quoted path, spaces and all (`/Users/Jane Doe/.pyenv/...`)
_QUOTED_PYTHON_PREFIX = re.compile(r'(?<=File ")[^"\n]*?/(?=lib/python\d\.\d+/)')
_REPO_PREFIX = re.compile(r"(?<![\w./-])" + _PATHISH + r"*/(?=snippets/TFD\d{3}/)")
# TF 1.15 AutoGraph names the folder its paths are relative to: the common prefix of the files, which is
# the checkout, or a folder above it when the interpreter or the environment lives elsewhere. Once the
# paths below it are normalised (the snippet's relative to the checkout, Python's `…/lib/pythonX.Y/`),
# the folder they are relative to is the checkout, wherever the machine keeps things.
_RELATIVE_TO = re.compile(r"(\brelative to )(?:/" + _PATHISH + r"*|/[^\n]*?(?=:\n)):")


def _without_checkout(text: str, checkout: Path) -> str:
    """The checkout's own path left out: `/work/main/snippets/TFD001/x.py` -> `snippets/TFD001/x.py`,
    the path alone (`relative to /work/main:`) -> `<checkout>`, in whatever folder it lives."""
    root = str(checkout).rstrip("/")
    if len(root) > 1:
        text = re.sub(r"(?<![\w./-])" + re.escape(root) + r"/", "", text)
        text = re.sub(r"(?<![\w./-])" + re.escape(root) + r"(?![\w./-])", "<checkout>", text)
        # shortened by a folder above it (TF 2.4: `defined at work/main/snippets/...`), spaces and all
        parts = root.strip("/").split("/")
        for i in range(len(parts)):
            tail = re.escape("/".join(parts[i:]))
            text = re.sub(r"(?<![\w./-])/?" + tail + r"/(?=snippets/TFD\d{3}/|\.envs/)", "", text)
    return text


def _without_tempdir(text: str, tempdir: str) -> str:
    """Whatever lies in this machine's temporary folder (`$TMPDIR`, spaces and all) -> `<tmpdir>`,
    as `_TMP` does for the usual names of temporary folders."""
    root = tempdir.rstrip("/")
    if len(root) > 1:
        text = re.sub(r"(?<![\w./-])" + re.escape(root) + r"/[^\s'\"]*", "<tmpdir>", text)
    return text


# The value of a variable in its repr (`numpy=array([[0.1, ...]], dtype=float32)`): random initial weights
_NUMPY = re.compile(r"numpy=\s*(?:array\([^()]*\)|[-+\w.]+)")


# A frame of the runner itself (how the snippet was started, fresh or forked), not of the snippet:
# TensorFlow's "defined at" stacks and Python's tracebacks start with them.
_RUNNER_FRAME = re.compile(r'^\s*File "(?:<frozen runpy>|[^"]*/runpy\.py|[^"]*tfdist_kb/proof/(?:child|forkserver|cluster)\.py)", line \d+')
# `with these attrs: [T=DT_FLOAT, shared_name="c0", num_devices=4]`: TensorFlow lists them in no fixed order
_ATTRS = re.compile(r"(with these attrs: \[)([^\]\n]*)(\])")


def _sorted_attrs(m: re.Match) -> str:
    parts, depth, quote, start = [], 0, None, 0
    body = m.group(2)
    for i, char in enumerate(body):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    parts.append(body[start:].strip())
    return m.group(1) + ", ".join(sorted(parts)) + m.group(3)


def _without_runner_frames(text: str) -> str:
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if _RUNNER_FRAME.match(lines[i]):
            indent = len(lines[i]) - len(lines[i].lstrip())
            i += 1
            if i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                i += 1  # its source line, or the blank line TensorFlow puts after each frame
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def normalise(text: str, checkout: Path = CHECKOUT) -> str:
    """Remove what differs between two runs of the same code: addresses, temp paths, where this
    machine keeps Python and the repository (absolute or shortened), variable values in reprs, the
    runner's own frames in a traceback (fresh and forked runs start the snippet differently), the
    order of an op's attributes, trailing blanks. Applying it twice changes nothing more."""
    text = _ADDRESS.sub("0x…", text)
    text = _NUMPY.sub("numpy=…", text)
    text = _without_checkout(text, checkout)
    text = _QUOTED_PYTHON_PREFIX.sub("…/", text)
    text = _PYTHON_PREFIX.sub("…/", text)
    text = _REPO_PREFIX.sub("", text)
    text = _RELATIVE_TO.sub(r"\1<checkout>:", text)
    text = _without_tempdir(text, tempfile.gettempdir())
    text = _TMP_RELATIVE.sub("<tmpdir>", _TMP.sub("<tmpdir>", text))
    text = _without_runner_frames(text)
    text = _ATTRS.sub(_sorted_attrs, text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


# TensorFlow's own log lines on stderr: C++ (`2026-01-01 12:00:00.000000: I tensorflow/...`), absl
# (`W0000 00:00:1700000000.000000   123 file.cc:12] ...`), Python (`WARNING:tensorflow:...`), banners.
_TF_LOG = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] |"
    r"(INFO|WARNING|ERROR):(tensorflow|absl|root):|WARNING: All log messages before absl::InitializeLog|"
    r"To enable the following instructions:|oneDNN custom operations are on|"
    r"Instructions for updating:|.*(cuda|cuDNN|cuFFT|cuBLAS|TensorRT).*(factory|register|find|found))")


def without_tf_logs(stderr: str) -> str:
    """stderr without TensorFlow's start-up banners and log lines: what the program itself wrote."""
    return "\n".join(line for line in stderr.splitlines() if not _TF_LOG.match(line))


def _fewer_frames(text: str, keep: int = 3) -> str:
    """Each run of traceback frames (`File "...", line N` lines, their source lines, blank lines)
    cut to its first and last `keep` frames: the frames in between say where, not what."""
    lines, out, run = text.splitlines(), [], []

    def flush():
        frames = [i for i, line in enumerate(run) if line.lstrip().startswith('File "')]
        if len(frames) > 2 * keep:
            cut_from, cut_to = frames[keep], frames[-keep]
            run[cut_from:cut_to] = [run[cut_from][:len(run[cut_from]) - len(run[cut_from].lstrip())]
                                    + f"[… {len(frames) - 2 * keep} frames left out …]"]
        out.extend(run)
        run.clear()

    for i, line in enumerate(lines):
        if line.lstrip().startswith('File "') or not line.strip() or (run and _is_code(lines, i)):
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


# The node an op error names: `[[{{node cond/Placeholder_3}}]]`, `Detected at node cond/Placeholder_3
# defined at`, `[[node replica_1/Assert (defined at ...)]]`, with the numeric suffix TensorFlow gives
# each replica's copy of the node.
_FAILED_NODE = re.compile(r"(?:\{\{node |\[\[node |Detected at node '?)([\w./-]*?[A-Za-z0-9])((?:_\d+)+)(?=[}'\s]|$)")
# TensorFlow's context lines after an op error: `\t [[LogicalAnd_15/_28]]`, the partitioned graph's
# nodes that were running when it failed (the `{{node X}}` line, which names the op, is kept)
_CONTEXT_LINE = re.compile(r"^\t \[\[[A-Za-z_][\w./-]*\]\]$")
# A collective error names the device of the member that reported it: `Op at device
# /job:localhost/replica:0/task:0/device:CPU:3 expected shape [40]`
_REPORTING_DEVICE = re.compile(r"(\bOp at device \S*?device:[A-Z_]*(?:CPU|GPU)):\d+")


def without_replica_choice(text: str) -> str:
    """`text` without what depends on which of the replicas reported an error first (thread
    timing, so it changes between two runs of the same code):
    - the numeric suffix of the node the error names, wherever that node's name occurs
      (`cond/Placeholder_3` -> `cond/Placeholder`: the name of replica 0's copy);
    - the context lines naming the partitioned graph's nodes that were running
      (`\t [[cond/else/_1/cond/Placeholder_1/_108]]`);
    - the device index of the member a collective error names (`device:CPU:3` -> `device:CPU:N`).
    Applying it twice changes nothing more."""
    suffixed = {m.group(1) + m.group(2): m.group(1) for m in _FAILED_NODE.finditer(text)}
    for full in sorted(suffixed, key=len, reverse=True):
        text = re.sub(r"(?<![\w])" + re.escape(full) + r"(?![\w])", suffixed[full], text)
    text = "\n".join(line for line in text.split("\n") if not _CONTEXT_LINE.match(line))
    return _REPORTING_DEVICE.sub(r"\1:N", text)


def message(raw: str, checkout: Path = CHECKOUT, traceback: str | None = None) -> tuple[str, str]:
    """The (whole message, headline) a run records of an exception's text: normalised (what differs
    between runs or machines left out), the message capped, the headline taken from the uncapped
    one. These exact strings are stored, published and compared with every re-run. An exception
    with no message (a bare `assert`) has its `traceback` (Python's, as the child formats it) say
    where it was raised: the headline is `raised_at`'s."""
    text = without_replica_choice(normalise(raw or "", checkout))
    if not text.strip() and traceback:
        return "", raised_at(normalise(traceback, checkout))
    return cap(text), headline(text)


_NO_MESSAGE = "with no message, raised at "
# `with no message, raised at "…/values.py", line 451, in _tensor_conversion_mirrored: assert not as_ref`
_RAISED_AT = re.compile(r"^" + _NO_MESSAGE + r'(?P<where>"[^"\n]*", line \d+, in [^:\n]+)(?:: (?P<code>.*))?$')


def raised_at(traceback: str) -> str:
    """Where an exception with no message was raised: its innermost frame and the source line there,
    from a normalised Python traceback (`with no message, raised at "…", line N, in f: code`)."""
    lines = [line for line in traceback.splitlines() if line.strip()]
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    if not frames:
        return ""
    i = frames[-1]
    below = lines[i + 1] if i + 1 < len(lines) else ""
    code = below.strip() if below and not _BARE_RAISE.match(below) else ""  # none where Python had no source
    return _NO_MESSAGE + lines[i].strip()[len("File "):] + (f": {code}" if code else "")


def one_line(exception: str, headline: str) -> str:
    """A recorded exception on one line: `Type: headline`, or `Type with no message, raised at …`."""
    return f"{exception} {headline}" if (headline or "").startswith(_NO_MESSAGE) else f"{exception}: {headline}"


def printed(exception: str, message: str, headline: str) -> str:
    """The end of the traceback Python prints for a recorded exception, as a user would paste it:
    `Type: message`, or for an exception with no message the frame it was raised in, its source line
    and the bare type."""
    found = _RAISED_AT.match(headline or "") if not (message or "").strip() else None
    if not found:
        return f"{exception}: {message}"
    code = f"\n    {found['code']}" if found["code"] else ""
    return f"  File {found['where']}{code}\n{exception}"


def cap(text: str, limit: int = CAP) -> str:
    """At most `limit` characters: long tracebacks inside the message shortened first, then the
    start and the end of what is still too long, the middle elided."""
    if len(text) <= limit:
        return text
    text = _fewer_frames(text)
    if len(text) <= limit:
        return text
    head = text[: limit // 2].rsplit("\n", 1)[0]
    tail = text[-(limit // 2 - 40):].split("\n", 1)[-1]
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters left out …]\n{tail}"


def _is_code(lines: list[str], i: int) -> bool:
    """Line i is the source line a traceback shows under a `File "...", line N` line."""
    return i > 0 and lines[i - 1].lstrip().startswith('File "')


_ROOT_ERRORS = re.compile(r"^\d+ root error\(s\) found\.?$")
# TensorFlow's status codes, as `(0) INVALID_ARGUMENT: ...` (newer releases) or `(0) Invalid argument: ...`
# (TF 2.4 and before) start the first replica's error; the code is the exception's name said again.
_STATUS_NAMES = ("Cancelled|Unknown|Invalid argument|Deadline exceeded|Not found|Already exists|Permission denied|"
                 "Resource exhausted|Failed precondition|Aborted|Out of range|Unimplemented|Internal|Unavailable|"
                 "Data loss|Unauthenticated")
_ROOT = re.compile(r"^\s*\((\d+)\)\s*(?:([A-Z_]+|" + _STATUS_NAMES + r"):\s*)?(\S.*)?$")
_BARE_RAISE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception))\s*:?\s*$")


def several_reported(message: str) -> bool:
    """Several replicas' errors reached Python together: `message` lists "N root error(s) found"."""
    return any(_ROOT_ERRORS.match(line.strip()) for line in (message or "").splitlines())


def headline(message: str) -> str:
    """The one line of `message` that names the problem (without a repeated exception name)."""
    lines = (message or "").splitlines()
    raised = [(i, m.group(2)) for i, line in enumerate(lines)
              if (m := _RAISED.match(line)) and not _is_code(lines, i)]
    wrapped = bool(lines) and _FRAME.match(lines[0])
    if raised and wrapped:
        return raised[-1][1].strip()  # the innermost error inside a wrapper
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or _FRAME.match(line) or _is_code(lines, i):
            continue
        if _ROOT_ERRORS.match(text):  # several replicas failed: the first one's own message, unless it
            # was only cancelled (`(0) Cancelled:  Operation was cancelled`, or nothing after the code):
            # then the first that says why, as the others were cancelled because of it
            roots = [(m.group(2) or "", (m.group(3) or "").strip()) for later in lines[i + 1:]
                     if (m := _ROOT.match(later))]
            said = [(code, words) for code, words in roots if words]
            cause = next((words for code, words in said if code.upper() != "CANCELLED"), None)
            if cause or said:
                return cause or said[0][1]
        if wrapped and (bare := _BARE_RAISE.match(line)):  # an `assert` without a message: say where
            where = raised_at("\n".join(lines[:i]))
            if where:
                return f"{bare.group(1)} {where}"
        return text
    return lines[0].strip() if lines else ""
