"""Writing a file so that a reader sees the old bytes or the new ones, never half of them.

A process killed while writing (Ctrl-C, SIGKILL, a full disk) used to leave a truncated cache
record or evidence file behind, which the next run then failed to parse. The text goes to a
temporary file in the same folder, reaches the disk, and replaces the old file in one rename.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class WriteError(OSError):
    """A file could not be written (a read-only folder, a full disk): the old file is unchanged.
    Its message is one line naming the file and the system's reason."""

    def __init__(self, path: Path, error: OSError, folder: bool = False):
        super().__init__(error.errno, error.strerror or str(error))
        self.path, self.folder = Path(path), folder

    def __str__(self) -> str:
        if self.folder:
            return f"cannot create a file in {self.path}: {self.strerror} (nothing was done)"
        return f"cannot write {self.path}: {self.strerror} (the file is unchanged)"


def check_writable(folder: Path) -> None:
    """WriteError unless a file can be created in `folder` (created if missing): asked before a long
    job whose result goes there, so that a read-only folder stops it before it starts."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(prefix=".tfdist-writable.", dir=folder):
            pass
    except OSError as error:
        raise WriteError(folder, error, folder=True) from None


def write_atomic(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically (the folder is created); returns `path`. WriteError (an
    OSError) if it cannot be written: `path` is then as it was, and no temporary file is left."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as error:
        raise WriteError(path, error) from None
    try:
        with os.fdopen(handle, "w", encoding=encoding) as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_UMASK)  # what a plain open() would have given it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError) and not isinstance(error, WriteError):
            raise WriteError(path, error) from None
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()  # read once, at import: os.umask cannot be read without setting it (not thread-safe)
