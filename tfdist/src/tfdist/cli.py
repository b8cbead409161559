"""The `tfdist` command."""
from __future__ import annotations

import os
import sys

USAGE = """\
usage: tfdist explain [--json] TEXT...      an entry ID (TFD001), or an error message or traceback
       tfdist explain [--json] --file PATH  the text of a file (a log, a pasted traceback)
       tfdist explain [--json] -            the text on standard input
       tfdist cluster [--workers 4] [--chief 1] [--ps N] SCRIPT
                                            run SCRIPT as a local TensorFlow cluster: one process
                                            per task, TF_CONFIG on localhost ports (tfdist.cluster)

Prints the entries that answer the text, root cause first, then best first (at most 3, and any
tied with the third): ID and title, the one-line fix, and the link. Words given as TEXT are joined
with spaces; a file is read only with --file (an argument that happens to name a file is text).
Only the last 200 kB of a longer text are matched: an error's message is at the end of its traceback.
--json prints a list of objects (id, title, url, tags, fix, score, matched, and for a text where:
see tfdist.matcher), every match, root cause first, then best first.

Exit status: 0 something matched, 1 nothing did, 2 unusable input (empty, binary, not UTF-8, an
unknown or malformed entry ID: the known IDs are listed), 74 the answer could not be written
(standard output closed, or its disk full).

Environment: TFDIST_BASE_URL the site's address in links (a mirror); TFDIST_DATA another error index.

The knowledge base repository's commands (envs, matrix, run, bench, lock, errors) are handed to
its machinery (`tfdist_kb`) when that is installed.
"""
KB_COMMANDS = ("envs", "matrix", "run", "bench", "lock", "errors", "drift", "gpu-check", "new-entry")
TAIL_BYTES = 200 * 1024  # bytes of the input that are matched (its end)
CHUNK = 1 << 20
ECHO = 80  # characters of the user's own input that an error message repeats
LINE = 1000  # characters of an error message, at most (a backstop: echoes are cut to ECHO)


OUTPUT_FAILED = 74  # EX_IOERR of sysexits.h: the answer could not be written


class InputError(Exception):
    """Input that cannot be explained: a one-line message, exit status 2."""


class OutputError(Exception):
    """Standard output cannot take what is written to it (a full disk, an I/O error): one line,
    exit status OUTPUT_FAILED. A closed pipe is not one: its reader has gone, quietly (141)."""

    def __init__(self, error):
        Exception.__init__(self, "cannot write to standard output: {}".format(
            getattr(error, "strerror", None) or error))


class _CheckedOutput(object):
    """sys.stdout while a command runs: a write or flush that fails (other than on a closed pipe)
    raises OutputError, which `main` reports in one line instead of a traceback."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(error)

    def flush(self):
        try:
            return self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(error)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def shown(text):
    """User input as an error message repeats it: quoted, on one line (newlines and control
    characters escaped), at most ECHO characters of it. A 100 kB argument is not written back."""
    if len(text) <= ECHO:
        return repr(text)
    return "{}... ({} characters)".format(repr(text[:ECHO]), len(text))


def one_line(message, limit=LINE):
    """An error message as printed: its first line, any word longer than 2 * ECHO (longer than a
    path) cut down to ECHO characters, the whole at most `limit` characters."""
    words = (message.splitlines() or [""])[0].split(" ")
    line = " ".join(w if len(w) <= 2 * ECHO else "{}... ({} characters)".format(w[:ECHO], len(w)) for w in words)
    return line if len(line) <= limit else line[:limit] + "... ({} characters)".format(len(line))


def _fail(message, code=2):
    try:
        sys.stderr.write("tfdist: {}\n".format(one_line(message)))
        sys.stderr.flush()
    except (AttributeError, OSError):  # standard error closed or full: the exit status still says it
        pass
    return code


def _decode_tail(stream, what):
    """(the last TAIL_BYTES of a binary stream as text, total size in bytes). The whole stream is
    checked (in chunks, memory bounded): a NUL byte means binary, and it must be UTF-8."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    tail = b""
    total = 0
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        if b"\0" in chunk:
            raise InputError("{} is binary (it has NUL bytes), not text".format(what))
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as error:
            raise InputError("{} is not UTF-8 text (byte 0x{:02x} at offset {})".format(
                what, chunk[error.start], total + error.start))
        total += len(chunk)
        tail = (tail + chunk)[-TAIL_BYTES:]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise InputError("{} is not UTF-8 text (it ends inside a character)".format(what))
    # the cut may fall inside a character: drop its continuation bytes
    start = 0
    if total > len(tail):
        while start < min(4, len(tail)) and 0x80 <= tail[start] < 0xC0:
            start += 1
    return tail[start:].decode("utf-8"), total


def _read(args_text, path):
    """(text, total bytes) from the arguments, a file or stdin ('-')."""
    if path is not None:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                raise InputError("no standard input to read")
            return _decode_tail(stream, "standard input")
        try:
            with open(path, "rb") as handle:
                return _decode_tail(handle, shown(path))
        except OSError as error:
            raise InputError("cannot read {}: {}".format(shown(path), error.strerror or error))
    text = " ".join(args_text)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes in argv arrive as surrogates
        raise InputError("the argument is not UTF-8 text")
    if "\0" in text:
        raise InputError("the argument is binary, not text")
    return text, len(data)


def _parse(argv):
    """(words, file path or None, json?) or ('help', ...)."""
    words, path, as_json = [], None, False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            words.extend(argv[i + 1:])
            break
        if arg in ("-h", "--help"):
            return None, None, None
        if arg == "--json":
            as_json = True
        elif arg == "--file" or arg.startswith("--file="):
            if arg == "--file":
                if i + 1 >= len(argv):
                    raise InputError("--file needs a path (or - for standard input)")
                i += 1
                value = argv[i]
            else:
                value = arg[len("--file="):]
            if path is not None:
                raise InputError("give one --file")
            path = value
        elif arg == "-":
            if path is not None:
                raise InputError("give one of --file PATH and -")
            path = "-"
        elif arg.startswith("-") and len(arg) > 1 and not words:
            raise InputError("unknown option {} (see tfdist explain --help)".format(shown(arg)))
        else:
            words.append(arg)
        i += 1
    if path is not None and words:
        raise InputError("give the text as arguments or with --file/-, not both")
    return words, path, as_json


def _print_human(results):
    shown = results[:3]
    if len(results) > 3:
        shown += [r for r in results[3:] if r["score"] == results[2]["score"]]
    blocks = []
    for r in shown:
        lines = ["{}  {}".format(r["id"], r["title"])]
        if r.get("fix"):
            lines.append("  fix: {}".format(r["fix"]))
        lines.append("  {}".format(r["url"]))
        blocks.append("\n".join(lines))
    sys.stdout.write("\n\n".join(blocks) + "\n")


def explain(argv):
    from . import matcher

    for stream in (sys.stdout, sys.stderr):  # a title or a path the terminal cannot show is escaped, not fatal
        try:
            stream.reconfigure(errors="backslashreplace")
        except Exception:
            pass
    try:
        words, path, as_json = _parse(argv)
        if words is None:
            sys.stdout.write(USAGE)
            return 0
        if not words and path is None:
            raise InputError("nothing to explain: give an entry ID, the error's text, --file PATH, or - for standard input")
        text, size = _read(words, path)
        if not text.strip():
            raise InputError("nothing to explain: the input is empty")
        cut = size > TAIL_BYTES
        results = [matcher.by_id(text)] if matcher.is_id_query(text) else matcher.match(text)
    except (InputError, matcher.QueryError, matcher.DataError) as error:
        return _fail(str(error).splitlines()[0] if str(error) else type(error).__name__)
    read = "the last {} kB of this {}-byte input (where a traceback's message is)".format(TAIL_BYTES // 1024, size)
    if cut and results:
        sys.stderr.write("tfdist: matched {}\n".format(read))
    if as_json:
        import json

        sys.stdout.write(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    elif results:
        _print_human(results)
    if not results:
        hint = ""
        if path is None and len(words) == 1 and os.path.isfile(words[0]):
            hint = " (to read the file {0}, give --file {0})".format(shown(words[0]))
        return _fail("no entry matches {}{}".format(read if cut else "this text", hint), 1)
    return 0


COMMANDS = "tfdist.commands"  # the entry-point group under which the knowledge base declares its main(argv)


def _commands():
    """The knowledge base's commands where its distribution is installed (an entry point of the
    group COMMANDS, not loaded yet), else None. tfdist never imports the knowledge base by name."""
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7: no importlib.metadata (and no knowledge base: it needs 3.11)
        return None
    found = metadata.entry_points()
    found = found.select(group=COMMANDS) if hasattr(found, "select") else found.get(COMMANDS, ())
    return next(iter(found), None)


def _knowledge_base(argv):
    entry = _commands()
    if entry is None:
        if argv[0] in KB_COMMANDS:
            return _fail("`tfdist {}` needs the knowledge base repository (its tfdist_kb package); this "
                         "installation has `tfdist explain` only".format(argv[0]))
        return _fail("unknown command {}; this installation has `tfdist explain` only".format(shown(argv[0])))
    try:
        kb_main = entry.load()
    except ImportError as error:
        return _fail("the knowledge base's commands cannot start: {}".format(error))
    return kb_main(argv)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.stdout is None:  # `tfdist explain TFD001 >&-`: Python found no file descriptor 1
        return _fail("standard output is closed: nothing was done (to discard the output, send it to "
                     "/dev/null)", OUTPUT_FAILED)
    stdout = sys.stdout
    sys.stdout = _CheckedOutput(stdout)
    try:
        try:
            return _dispatch(argv)
        finally:
            sys.stdout.flush()  # here, where a closed pipe or a full disk can be caught, not at exit
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tfdist explain ... | head -c 10`: the reader has what it wanted
        return _quiet_exit()
    except OutputError as error:  # `tfdist explain TFD001 > /dev/full`
        _quiet_exit()
        return _fail(str(error), OUTPUT_FAILED)
    finally:
        sys.stdout = stdout


def _dispatch(argv):
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    if argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if argv[0] == "--version":
        from . import __version__

        sys.stdout.write("tfdist {}\n".format(__version__))
        return 0
    if argv[0] == "explain":
        return explain(argv[1:])
    if argv[0] == "cluster":
        from .cluster import main as cluster

        return cluster(argv[1:])
    return _knowledge_base(argv)


def _quiet_exit():
    """After a broken pipe (or a failed write): no more output, and no "Exception ignored" when
    Python flushes stdout at exit. 141 is what a shell reports for a process ended by SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except Exception:
        pass
    return 141


if __name__ == "__main__":
    sys.exit(main())
