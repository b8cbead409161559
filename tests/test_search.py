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


def test_a_build_without_directory_urls_names_its_pages_as_it_publishes_them():
    """The offline variant (file://) publishes e/TFD001.html: the search box must find that page in
    its search index, for an ID or a paste the signatures name."""
    index = errors.build()
    online, offline = errors.search_data(index), errors.search_data(index, directory_urls=False)
    assert [e["path"] for e in online["entries"]] == [f"e/{e['id']}/" for e in online["entries"]]
    assert [e["path"] for e in offline["entries"]] == [f"e/{e['id']}.html" for e in offline["entries"]]
    assert [e["signatures"] for e in offline["entries"]] == [e["signatures"] for e in online["entries"]]
    script = errors.search_script(index, directory_urls=False)
    assert json.loads(script.split(" = ", 1)[1].rstrip().rstrip(";")) == offline


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

