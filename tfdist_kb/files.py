"""Writing a file so that a reader sees the old bytes or the new ones, never half of them.

A process killed while writing (Ctrl-C, SIGKILL, a full disk) used to leave a truncated cache
record or evidence file behind, which the next run then failed to parse. The text goes to a
temporary file in the same folder, reaches the disk, and replaces the old file in one rename.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically (the folder is created); returns `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding=encoding) as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_UMASK)  # what a plain open() would have given it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()  # read once, at import: os.umask cannot be read without setting it (not thread-safe)
