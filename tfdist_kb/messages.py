"""Error messages as the evidence keeps them: normalised, capped, and the line that names the problem.

TensorFlow and Keras often wrap the real error: `in user code:` followed by a traceback of the
traced function and then `ValueError: ...`, or `Graph execution error:` followed by the node's
creation traceback and then the op's own message. The first line says nothing; `headline()`
finds the line that does.
"""
from __future__ import annotations

import re

CAP = 4000  # characters of a whole message kept in the evidence

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_TMP = re.compile(r"/tmp/[A-Za-z0-9_./-]*?(tmp[a-z0-9_]{6,}|pytest-of-[^/\s]+)[^\s'\"]*")
# `ValueError: text`, `tensorflow.python.framework.errors_impl.InvalidArgumentError: text`
_RAISED = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Warning|Exit))\s*:\s*(\S.*)$")
# Lines that frame the message rather than state it
_FRAME = re.compile(
    r"^\s*(in user code:|Graph execution error:|Detected at node\b|defined at \(most recent call last\)|"
    r"File \"|Node: |Call arguments received|Traceback \(most recent call last\)|"
    r"Exception encountered when calling|\[\[\{\{node|\[\[node|\[Op:|Stack trace for|Function call stack:|"
    r"Encountered when executing an operation|<stack traces unavailable>|[-=]{3,}$|\w+_function$)")


# Where the machine keeps Python and the snippets: `/root/.pyenv/versions/3.11.7/lib/python3.11/...`,
# `/work/main/.envs/tf2.15/lib/python3.11/site-packages/...`, `/home/ci/repo/snippets/TFD001/x.py`
_PYTHON_PREFIX = re.compile(r"(?<![\w.])/[^\s\"':]*?/(?=lib/python\d\.\d+/)")
_REPO_PREFIX = re.compile(r"(?<![\w.])/[^\s\"':]*?/(?=snippets/TFD\d{3}/)")


# The value of a variable in its repr (`numpy=array([[0.1, ...]], dtype=float32)`): random initial weights
_NUMPY = re.compile(r"numpy=\s*(?:array\([^()]*\)|[-+\w.]+)")


def normalise(text: str) -> str:
    """Remove what differs between two runs of the same code: addresses, temp paths, where this
    machine keeps Python and the repository, variable values in reprs, trailing blanks."""
    text = _ADDRESS.sub("0x…", text)
    text = _NUMPY.sub("numpy=…", text)
    text = _TMP.sub("<tmpdir>", text)
    text = _PYTHON_PREFIX.sub("…/", text)
    text = _REPO_PREFIX.sub("", text)
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


def cap(text: str, limit: int = CAP) -> str:
    """At most `limit` characters: the start and the end of a longer message, the middle elided."""
    if len(text) <= limit:
        return text
    head = text[: limit // 2].rsplit("\n", 1)[0]
    tail = text[-(limit // 2 - 40):].split("\n", 1)[-1]
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters left out …]\n{tail}"


def _is_code(lines: list[str], i: int) -> bool:
    """Line i is the source line a traceback shows under a `File "...", line N` line."""
    return i > 0 and lines[i - 1].lstrip().startswith('File "')


def headline(message: str) -> str:
    """The one line of `message` that names the problem (without a repeated exception name)."""
    lines = [line for line in (message or "").splitlines()]
    raised = [m.group(2) for i, line in enumerate(lines)
              if (m := _RAISED.match(line)) and not _is_code(lines, i)]
    if raised and _FRAME.match(lines[0] if lines else ""):
        return raised[-1].strip()  # the innermost error inside a wrapper
    for i, line in enumerate(lines):
        text = line.strip()
        if text and not _FRAME.match(line) and not _is_code(lines, i):
            return text
    return (lines[0].strip() if lines else "")
