"""`install()`: uncaught exceptions that match an entry print one more line naming it.

The line goes to stderr after the normal traceback (`tfdist: TFD001 <title> <url>`). The hooks call
the ones they replace first and never raise, so the exception, its traceback and the exit status
stay Python's own. Nothing is read or matched until an exception is left uncaught.
"""
from __future__ import annotations

import sys

from . import matcher

_state = {"installed": False, "data": None}


def line_for(exc, data=None):
    """The line printed for an exception (None when no entry matches)."""
    found = matcher.best(matcher.exception_text(exc), data)
    if found is None:
        return None
    return "tfdist: {} {} {}".format(found["id"], found["title"], found["url"])


def _note(exc, stream=None):
    """Print the line for `exc`, if any; never raises."""
    try:
        if exc is None or isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)):
            return
        text = line_for(exc, _state["data"])
        if text is None:
            return
        stream = stream or sys.stderr
        if stream is None:
            return
        stream.write(text + "\n")
        stream.flush()
    except Exception:  # a broken data file or stream must not add a second traceback
        pass


def _install_excepthook():
    previous = sys.excepthook

    def excepthook(exc_type, exc_value, exc_traceback):
        try:
            previous(exc_type, exc_value, exc_traceback)
        finally:
            _note(exc_value)

    excepthook.tfdist = True
    sys.excepthook = excepthook


def _install_threading():
    import threading

    if hasattr(threading, "excepthook"):  # Python 3.8+
        previous = threading.excepthook

        def thread_excepthook(args):
            try:
                previous(args)
            finally:
                _note(args.exc_value)

        thread_excepthook.tfdist = True
        threading.excepthook = thread_excepthook
        return
    # Python 3.7: no threading.excepthook. Each thread's run() is wrapped when it starts; the
    # line is printed as the exception leaves run(), so it comes just before the traceback that
    # threading prints. The exception itself goes on unchanged.
    bootstrap = threading.Thread._bootstrap_inner

    def _bootstrap_inner(self):
        run = self.run

        def wrapped_run(*args, **kwargs):
            try:
                return run(*args, **kwargs)
            except BaseException as error:
                _note(error)
                raise

        self.run = wrapped_run
        return bootstrap(self)

    threading.Thread._bootstrap_inner = _bootstrap_inner


def _install_ipython():
    """In IPython/Jupyter (already imported, never imported here): a custom exception handler that
    shows the normal traceback (or calls the handler that was there) and then the line."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return
    try:
        shell = ipython_module.get_ipython()
    except Exception:
        return
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return
    old_types = tuple(getattr(shell, "custom_exceptions", ()) or ())
    old_handler = getattr(shell, "CustomTB", None) if old_types else None

    def handler(self, exc_type, exc_value, exc_traceback, tb_offset=None):
        result = None
        try:
            if old_handler is not None and issubclass(exc_type, old_types):
                result = old_handler(exc_type, exc_value, exc_traceback, tb_offset=tb_offset)
            else:
                self.showtraceback((exc_type, exc_value, exc_traceback), tb_offset=tb_offset)
        finally:
            _note(exc_value)
        return result

    shell.set_custom_exc(tuple(set(old_types) | {Exception}), handler)


def install(data=None):
    """Make uncaught exceptions that match an entry print one extra line (ID, title, URL) to stderr
    after the normal traceback: scripts (sys.excepthook), threads (threading.excepthook; on Python
    3.7 each thread's run()), IPython/Jupyter (set_custom_exc). A second call does nothing.
    `data`: another error index (a dict from `tfdist.load(path)`), default the shipped one or
    $TFDIST_DATA."""
    if _state["installed"]:
        return
    _state["installed"] = True
    _state["data"] = data
    _install_excepthook()
    for step in (_install_threading, _install_ipython):
        try:
            step()
        except Exception:  # an unusual runtime: the other hooks still work
            pass
