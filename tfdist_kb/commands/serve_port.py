"""`make serve`'s look at its port before MkDocs starts: a port in use is one line naming a free
one, instead of MkDocs' 30-line OSError traceback.

  python -m tfdist_kb.commands.serve_port PORT    exit 0 if 127.0.0.1:PORT can be served, else 1 (2: not a port)
"""
from __future__ import annotations

import errno
import re
import socket
import sys

HOST = "127.0.0.1"  # what `make serve` serves on


def problem(port: int) -> OSError | None:
    """Why PORT cannot be served on HOST, or None. Bound as MkDocs' server binds (SO_REUSEADDR):
    a port left in TIME_WAIT by the last `make serve` is free, a listening one is not."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as error:
            return error
    return None


def main(argv: list[str]) -> int:
    text = argv[1] if len(argv) > 1 else ""
    if not re.fullmatch(r"[0-9]{1,5}", text) or not 0 < int(text) < 65536:
        shown = text if len(text) <= 40 else text[:40] + "..."
        print(f"make serve: PORT must be a number from 1 to 65535, not {shown!r}", file=sys.stderr)
        return 2
    port = int(text)
    error = problem(port)
    if error is None:
        return 0
    free = next((p for p in range(port + 1, min(port + 100, 65536)) if problem(p) is None), None)
    another = f"make serve PORT={free}" if free else "make serve PORT=N"
    if error.errno == errno.EADDRINUSE:
        print(f"make serve: port {port} is in use; choose another: {another}", file=sys.stderr)
    else:
        print(f"make serve: cannot serve on {HOST}:{port} ({error.strerror}); choose another: {another}",
              file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
