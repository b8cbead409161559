"""The error index shipped in the tfdist package is the one the registry and the evidence give, and
the site's address is one setting."""
import json

import pytest

from tfdist_kb.site import errors


def test_package_data_is_current():
    shipped = json.loads(errors.PACKAGE_DATA.read_text())
    assert shipped == errors.build(errors.default_base_url()), (
        "tfdist/src/tfdist/data/errors.json is out of date: run `tfdist errors` (make matrix does it)")


def test_base_url_is_one_setting(monkeypatch):
    monkeypatch.delenv(errors.BASE_URL_VARIABLE, raising=False)
    assert errors.base_url() == errors.default_base_url() == "http://127.0.0.1:8000/"
    monkeypatch.setenv(errors.BASE_URL_VARIABLE, "https://kb.internal.example/tf")
    assert errors.base_url() == "https://kb.internal.example/tf/"
    assert errors.build()["entries"][0]["url"].startswith("https://kb.internal.example/tf/e/TFD001/")


def test_entry_without_declared_errors_is_refused(tmp_path, monkeypatch):
    from tfdist_kb.site import registry

    page = tmp_path / "TFD001.md"
    page.write_text("---\nid: TFD001\ntitle: x\ntags: [ema]\nsignatures: ['(unclosed']\nfix: do this\n---\n# x\n")
    monkeypatch.setattr(registry.Entry, "page", property(lambda self: page))
    with pytest.raises(errors.DeclarationError, match=r"TFD001: signature '\(unclosed' is not a valid regular expression"):
        errors.build()
    page.write_text("---\nid: TFD001\ntitle: x\ntags: [ema]\nsignatures: ['x']\n---\n# x\n")
    with pytest.raises(errors.DeclarationError, match="needs `fix:`"):
        errors.build()


def test_index_carries_each_entrys_fix_snippets():
    """`fix_snippets` (the snippets that do what `fix` says) reach errors.json as the page declares them."""
    from tfdist_kb.site import registry

    for item in errors.build()["entries"]:
        if item["status"] == "published":
            declared = registry.front_matter(registry.load()[item["id"]].page)[0].get("fix_snippets")
            assert item.get("fix_snippets") == (list(declared) if declared else None), item["id"]
