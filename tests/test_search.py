"""The data the site's search box matches pasted errors with (tfdist_kb.site.errors.search_data): the
error index's signatures with the matcher's scores, in a form the browser runs. That the browser's
answers agree with tfdist.matcher is checked in a real browser (test_browser.py)."""
import json

import pytest
from tfdist import matcher

from tfdist_kb.site import errors

def test_search_data_is_the_error_index_with_the_matchers_scores():
    index = errors.build()
    data = errors.search_data(index)
    published = [e for e in index["entries"] if e["status"] == "published"]
    assert [e["id"] for e in data["entries"]] == [e["id"] for e in published]
    for mine, theirs in zip(data["entries"], published):
        assert mine["path"] == theirs["path"]
        assert [s for s, _ in mine["signatures"]] == theirs["signatures"]  # none needed rewriting
        assert [score for _, score in mine["signatures"]] == [matcher.literal_score(s) for s in theirs["signatures"]]
    script = errors.search_script(index)
    assert script.count("window.tfdistSignatures = ") == 1
    assert json.loads(script.split(" = ", 1)[1].rstrip().rstrip(";")) == data


@pytest.mark.parametrize("signature, rewritten", [
    ("(?P<name>Strategy) is (?P=name)", r"(?<name>Strategy) is \k<name>"),
    ("plain (text)", "plain (text)"),
])
def test_python_named_groups_become_javascript_ones(signature, rewritten):
    assert errors._javascript(signature) == rewritten


@pytest.mark.parametrize("signature", [r"message\Z", r"\Amessage", "(?i)message", "(?#note)message",
                                       "(?>atomic)", "a++"])
def test_python_only_syntax_is_refused_in_one_line(signature):
    with pytest.raises(errors.DeclarationError, match="no JavaScript equivalent"):
        errors._javascript(signature)

