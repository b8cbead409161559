"""tfdist: find the TensorFlow distributed-training pitfall that an error message points to.

    import tfdist
    tfdist.install()            # uncaught exceptions that match an entry print one more line:
                                # tfdist: TFD001 <title> <url>
    tfdist.lookup(exc_or_text)  # the best entry (a dict: id, title, url, tags, fix, score) or None
    tfdist.annotate(exc)        # Python 3.11+: adds that line as a note (PEP 678); returns exc
    tfdist.explain("TFD001")    # what `tfdist explain` answers: a list of entries, best first
    tfdist.local_cluster("train.py", workers=4)
                                # try multi-worker code on one machine: one process per task,
                                # TF_CONFIG on localhost ports (also `tfdist cluster --workers 4 train.py`)
    tfdist.doctor(strategy, model=model, optimizer=optimizer)
                                # the silent failures no error links to: a list of findings
                                # (id, severity, message, url); raise_on="error" raises DoctorError

Offline: the error index ships with the package (`data/errors.json`); $TFDIST_DATA points to
another file, $TFDIST_BASE_URL sets the site's address used in links (a mirror).
"""
from __future__ import annotations

from .cluster import TaskFailed, local_cluster
from .doctor import DoctorError, Finding, Findings, doctor  # `tfdist.doctor` is the function
from .hook import install, line_for
from .matcher import DataError, QueryError, best, by_id, check, exception_text, load, match, normalise

__version__ = "0.1.0"
__all__ = ["install", "lookup", "annotate", "explain", "doctor", "local_cluster", "TaskFailed", "match", "best", "load", "normalise",
           "DataError", "QueryError", "DoctorError", "Finding", "Findings", "__version__"]


def _text(exc_or_text):
    if isinstance(exc_or_text, BaseException):
        return exception_text(exc_or_text)
    if isinstance(exc_or_text, bytes):
        return exc_or_text.decode("utf-8", "replace")
    return str(exc_or_text)


def lookup(exc_or_text, data=None):
    """The best entry for an exception (its `Type: message` and those of its __cause__/__context__
    chain) or for a text, as a dict (id, title, url, tags, fix, score, matched); None if none
    matches. `data`: another error index (`tfdist.load(path)`)."""
    return best(_text(exc_or_text), data)


def annotate(exc, data=None):
    """On Python 3.11+, add the line naming the matching entry to `exc` as a note (PEP 678), once;
    on older Pythons, and when nothing matches, `exc` is left as it is. Returns `exc`."""
    if hasattr(exc, "add_note"):
        try:
            line = line_for(exc, data)
        except Exception:
            line = None
        if line and line not in (getattr(exc, "__notes__", None) or ()):
            exc.add_note(line)
    return exc


def explain(query, data=None):
    """What `tfdist explain` answers for a text: [the entry] for an entry ID (QueryError, listing
    the known IDs, for a malformed or unknown one), else every matching entry, best first."""
    from .matcher import explain as _explain

    return _explain(query, data)
