"""What ties the entries' declarations to the runs (issue 18, points 4 and 5), each check proved by a
mutation of a copy that must turn it red.

Signatures. Every signature an entry declares must match a message the evidence recorded (a raised
run's whole message or headline, or what a run printed) or a real paste of tests/corpus; and every
signature must be needed: taking any one away makes one of the answers the suite asserts wrong (a
recorded message of the entry's own snippets, whole or as users paste it, no longer ranks the entry
first; a labelled real paste no longer gets its entry). A signature nothing needs is dead weight
that hides what the matcher really relies on: remove it, or add the real paste that needs it.

Fixes. Each entry's `fix:` names its fix snippets (`fix_snippets:` in the front matter). In every
environment where the entry's error was reproduced (one of its other snippets raised, hung or
printed its documented wrong result), each of them passed or declares itself not
applicable there (it raised nowhere the error was seen), at least one passed in each such
environment, and every API name the fix puts in backticks (in both languages) is used by one of
them. A fix holds no typed version: outside backticks it has no digits.

Languages. Each `X.zh.md` has the sections of `X.md` (heading levels in order, explicit anchors),
the same macro calls with the same arguments in the same order, the same snippet includes and the
same kinds of admonition boxes. Each language's titles belong to their ID: the registry's title is
the English page's title and H1, the Chinese page's front-matter title is its H1, it carries the
English title's code names and quoted messages (a translation keeps them) and no other ASCII words,
and the error index of each language shows each ID with its own page's title.
"""
from __future__ import annotations

import difflib
import functools
import itertools
import json
import re
from pathlib import Path

import pytest
import test_signatures as S

from tfdist_kb.proof import envs, expect
from tfdist_kb.commands import scaffold
from tfdist_kb.site import i18n, macros, registry

ROOT = S.ROOT
DOCS = ROOT / "docs"
RUNS = json.loads(S.EVIDENCE.read_text())["runs"]
PUBLISHED = [e for e in registry.load().values() if e.status == "published"]


# --------------------------------------------------------------------------------------------
# Signatures: the texts they are checked on.

def recorded_texts(runs: list[dict]) -> list[tuple[str, str]]:
    """Every message the evidence recorded, as the matcher sees a paste: each raised run's whole
    message and headline (with the exception's name), and what any run printed."""
    out = []
    for r in runs:
        rid = f"{r['snippet'].removeprefix('snippets/')}@{r['env']}"
        if r["outcome"] == "raised":
            out.append((rid, S._whole(r)))
            out.append((f"{rid} headline", f"{r['exception']}: {r['headline']}"))
        for stream in ("stdout", "stderr"):
            if r.get(stream):
                out.append((f"{rid} {stream}", r[stream]))
    return out


def corpus_texts(pastes: list[dict]) -> list[tuple[str, str]]:
    return [(f"paste {p['source']}", p["error_text"]) for p in pastes]


def unmatched(declared: dict[str, list[str]], texts: list[tuple[str, str]]) -> list[str]:
    """The signatures that match none of `texts` (normalised as the matcher does)."""
    normalised = [S.matcher.normalise(text) for _, text in texts]
    out = []
    for eid, signatures in declared.items():
        for signature in signatures:
            pattern = re.compile(signature, re.IGNORECASE)
            if not any(pattern.search(text) for text in normalised):
                out.append(f"{eid}: {signature!r}")
    return out


# The answers the suite asserts (test_signatures), as claims a ranking must satisfy.

def _claims() -> list[dict]:
    claims = []
    for record in S.RAISED:
        own = S._entry(record)
        if own not in S.DECLARED:
            continue
        for what, text in S._variants(record):
            allowed = S.TIED.get(S._rid(record), {own})
            if what.startswith("headline"):
                allowed = allowed | S.HEADLINE_TIED.get(S._rid(record), set())
            claims.append({"what": f"{S._rid(record)} ({what})", "text": text, "own": own,
                           "allowed": allowed, "first": False})
    for eid, frames in list(S._K3_FRAMES.items()) + [("TFD002", S._K3_FIT_UNFILTERED)]:
        claims.append({"what": f"Keras 3 traceback of {eid}", "text": "Traceback (most recent call last):\n"
                       + frames + S._K3, "own": eid, "allowed": {eid}, "first": True})
    for what, message, own in S.per_replica_uses():
        claims.append({"what": f"TFD033's refused use {what}", "text": message, "own": own, "allowed": {own},
                       "first": True})
    for paste in S.corpus():
        if paste["label"] != "uncovered":
            claims.append({"what": f"paste {paste['source']}", "text": paste["error_text"], "own": paste["label"],
                           "allowed": {paste["label"], *paste["tied_with"]}, "first": True})
    return claims


def _ranking(matched: dict[str, dict[str, tuple[int, int]]]) -> list[tuple[str, tuple[int, int, int]]]:
    """The matcher's ranking (as test_signatures.rank gives it) from the signatures of each entry that
    matched and where each first matched (its scoring rule; test_fast_ranking_is_the_matchers checks
    it gives what matcher.match gives)."""
    scored = []
    for eid, signatures in matched.items():
        counted = [(S.matcher.literal_score(s), w) for s, w in signatures.items() if S.matcher.literal_score(s) > 0]
        if counted:
            log, chain = min(w for _, w in counted)
            scored.append((eid, (-log, -chain, max(c for c, _ in counted) + len(counted) - 1)))
    if len(scored) == 1:  # one answer: the matcher orders nothing, and says [0, 0]
        scored = [(scored[0][0], (0, 0, scored[0][1][2]))]
    return sorted(scored, key=lambda item: (-item[1][0], -item[1][1], -item[1][2], item[0]))


def _wrong(claim: dict, ranking: list[tuple[str, int]]) -> bool:
    if not ranking:
        return True
    top = {eid for eid, score in ranking if score == ranking[0][1]}
    if claim["first"]:
        return ranking[0][0] != claim["own"] or not top <= claim["allowed"]
    return claim["own"] not in top or not top <= claim["allowed"]


def _matches(declared: dict[str, list[str]], claims: list[dict]) -> list[dict[str, dict[str, tuple[int, int]]]]:
    """For each claim, the signatures of each entry that match its text, each with `matcher.where` its
    match starts."""
    compiled = {(eid, s): re.compile(s, re.IGNORECASE) for eid, sigs in declared.items() for s in sigs}
    out = []
    for claim in claims:
        text = S.matcher.normalise(claim["text"][-S.matcher.MAX_TEXT:])
        markers = S.matcher._markers(text)
        found: dict[str, dict[str, tuple[int, int]]] = {}
        for (eid, signature), pattern in compiled.items():
            hit = pattern.search(text)
            if hit:
                found.setdefault(eid, {})[signature] = S.matcher.where(hit.start(), markers)
        out.append(found)
    return out


_cache: dict = {}


def _matches_of(declared: dict[str, list[str]], claims: list[dict]) -> list[dict[str, dict[str, tuple[int, int]]]]:
    """`_matches`, from the full declarations' matches (computed once) for the signatures they hold
    and searched anew only for the others (the mutations add or remove signatures)."""
    if claims is not CLAIMS:
        return _matches(declared, claims)
    if "full" not in _cache:
        _cache["full"] = _matches(S.DECLARED, CLAIMS)
    extra = {k: [s for s in v if s not in S.DECLARED.get(k, ())] for k, v in declared.items()}
    more = _matches({k: v for k, v in extra.items() if v}, claims) if any(extra.values()) else [{}] * len(claims)
    out = []
    for found, added in zip(_cache["full"], more):
        merged = {k: {s: w for s, w in v.items() if s in declared.get(k, ())} for k, v in found.items()}
        for k, v in added.items():
            merged.setdefault(k, {}).update(v)
        out.append({k: v for k, v in merged.items() if v})
    return out


def unneeded(declared: dict[str, list[str]], claims: list[dict]) -> tuple[list[str], list[str]]:
    """(claims already wrong, signatures whose removal leaves every claim right)."""
    matches = _matches_of(declared, claims)
    already = [c["what"] for c, m in zip(claims, matches) if _wrong(c, _ranking(m))]
    out = []
    for eid, signatures in declared.items():
        for signature in signatures:
            needed = False
            for claim, found in zip(claims, matches):
                if signature not in found.get(eid, ()):
                    continue
                without = {k: {s: w for s, w in v.items() if not (k == eid and s == signature)}
                           for k, v in found.items()}
                if _wrong(claim, _ranking(without)):
                    needed = True
                    break
            if not needed:
                out.append(f"{eid}: {signature!r}")
    return already, out


CLAIMS = _claims()


def test_fast_ranking_is_the_matchers():
    """The removal test below ranks from the matched signatures itself; here it is the matcher's."""
    for claim, found in zip(CLAIMS, _matches_of(S.DECLARED, CLAIMS)):
        assert _ranking(found) == S.rank(claim["text"]), claim["what"]


# Signatures that match no recorded message and no real paste, each kept for the reason given; it
# must still be needed (test_every_signature_is_needed), and it leaves this list once a recorded
# message or a real paste matches it.
KEPT_UNRECORDED = {
    ("TFD002", r"\.fit\(.{0,4000}?add_variable_from_reference.{0,2000}?Need to be inside .?with strategy\.scope\(\)"):
        "a Keras 3 `fit` traceback with Keras's traceback filtering off (test_signatures._K3_FIT_UNFILTERED, from a "
        "run of TFD002's snippet): the evidence keeps only the bare message, which TFD002's `fit` raises outside any "
        "traced function; without this signature the `.apply_gradients(` frame of that traceback sends it to TFD003",
}


def test_every_signature_matches_a_recorded_message_or_a_real_paste():
    dead = unmatched(S.DECLARED, recorded_texts(RUNS) + corpus_texts(S.corpus()))
    kept = [f"{eid}: {signature!r}" for eid, signature in KEPT_UNRECORDED]
    assert set(kept) <= set(dead), f"kept as unrecorded but matched by a recorded message or paste now: {set(kept) - set(dead)}"
    dead = [d for d in dead if d not in kept]
    assert not dead, ("signatures that match no message the evidence recorded and no paste of "
                      "tests/corpus/real_errors.jsonl:\n  " + "\n  ".join(dead))


def test_every_signature_is_needed(capsys):
    already, spare = unneeded(S.DECLARED, CLAIMS)
    assert not already, "answers already wrong (test_signatures says more):\n  " + "\n  ".join(already)
    with capsys.disabled():
        print(f"\n{sum(map(len, S.DECLARED.values()))} signatures, each needed by one of {len(CLAIMS)} asserted answers")
    assert not spare, ("signatures that no asserted answer needs (every recorded message and real paste "
                       "they match is answered as well without them): remove them, or add the real paste "
                       "that needs them to tests/corpus\n  " + "\n  ".join(spare))


# Mutations: a copy of the declarations with one signature removed, or one that matches nothing added.

def _declared_from(page: Path) -> list[str]:
    return list(registry.front_matter(page)[0].get("signatures") or [])


def _drop_signature(page: Path, tmp_path: Path, index: int) -> tuple[Path, str]:
    text = page.read_text()
    lines = text.split("\n")
    start = lines.index("signatures:") + 1
    removed = lines.pop(start + index)
    copy = tmp_path / page.name
    copy.write_text("\n".join(lines))
    return copy, removed


@pytest.mark.parametrize("eid", ["TFD009", "TFD014", "TFD004"])
def test_mutation_signature_removed_is_caught(tmp_path, eid):
    page = DOCS / "e" / f"{eid}.md"
    for index in range(len(_declared_from(page))):
        copy, removed = _drop_signature(page, tmp_path, index)
        declared = dict(S.DECLARED, **{eid: _declared_from(copy)})
        assert len(declared[eid]) == len(S.DECLARED[eid]) - 1
        already, spare = unneeded(declared, CLAIMS)
        assert already, f"removing {removed.strip()} from a copy of {eid}.md left every asserted answer right"


def test_mutation_signature_matching_nothing_is_caught():
    declared = dict(S.DECLARED, TFD001=S.DECLARED["TFD001"] + [r"Optimizer slot variables went on holiday"])
    assert "TFD001: 'Optimizer slot variables went on holiday'" in unmatched(
        declared, recorded_texts(RUNS) + corpus_texts(S.corpus()))
    before = set(unneeded(S.DECLARED, CLAIMS)[1])
    assert set(unneeded(declared, CLAIMS)[1]) - before == {"TFD001: 'Optimizer slot variables went on holiday'"}


# --------------------------------------------------------------------------------------------
# Fixes: `fix:` names its fix snippets, which hold where the error was reproduced.

BACKTICKED = re.compile(r"`([^`]+)`")


def api_names(fix: str) -> list[str]:
    return BACKTICKED.findall(fix)


def uses(source: str, name: str) -> bool:
    """Whether a snippet's source uses `name` (whitespace around punctuation ignored; `f()` counts as
    a call of `f`)."""
    def flat(text):
        return re.sub(r"\s*([^\w\s])\s*", r"\1", re.sub(r"\s+", " ", text))
    flat, want = flat(source), flat(name)
    want = want[:-1] if want.endswith("()") else want
    start = r"(?<![\w])" if re.match(r"\w", want) else ""  # a name starts a word; `.suffix` may follow one
    return re.search(start + re.escape(want), flat) is not None


def outcomes(runs: list[dict]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for r in runs:
        out.setdefault(r["snippet"].removeprefix("snippets/"), {})[r["env"]] = r["outcome"]
    return out


_ENV_NAMES = [env.name for env in envs.load()]


@functools.lru_cache(maxsize=None)
def _declared(path: Path, env: str) -> str | None:
    """The kind of outcome a snippet declares for an environment (None if it is gone)."""
    return expect.read(path, _ENV_NAMES)[env].kind if path.exists() and env in _ENV_NAMES else None


def fix_problems(eid: str, meta: dict, meta_zh: dict, runs: list[dict], snippets: Path) -> list[str]:
    """What is wrong with an entry's `fix:` and `fix_snippets:` (empty when sound)."""
    problems = []
    fix, listed = meta.get("fix") or "", meta.get("fix_snippets")
    if not isinstance(listed, list) or not listed or not all(isinstance(s, str) for s in listed):
        return [f"{eid}: front matter needs `fix_snippets:`, the snippets (TFDnnn/name.py) that do what `fix:` says"]
    known = outcomes(runs)
    for name in listed:  # a fix passes; a run that printed a documented wrong result is no fix
        for env, outcome in known.get(name, {}).items():
            if outcome == "passed" and _declared(snippets / name, env) == "prints":
                known[name][env] = "wrong result"
    # where the error was reproduced: the environments where a snippet of the entry that is not one
    # of its fixes raised, hung or printed the wrong result it documents, or (an entry about a
    # warning) printed a line that the entry's own signatures match
    signatures = [re.compile(s, re.IGNORECASE) for s in meta.get("signatures") or ()]

    def warned(r):
        text = S.matcher.normalise(r.get("stdout") or "")
        return r["outcome"] == "passed" and any(s.search(text) for s in signatures)

    def failed(r):
        if r["outcome"] not in ("passed", "not-applicable"):
            return True
        return r["outcome"] == "passed" and (_declared(snippets / r["snippet"].removeprefix("snippets/"),
                                                       r["env"]) == "prints" or warned(r))

    reproduced = sorted({r["env"] for r in runs if r["snippet"].startswith(f"snippets/{eid}/")
                         and r["snippet"].removeprefix("snippets/") not in listed and failed(r)})
    if not reproduced:
        return [f"{eid}: the evidence holds no run of its snippets that failed (raised, hung or printed a "
                f"wrong result): record them (tfdist matrix --snippets {eid})"]
    sources = {}
    for name in listed:
        if not (snippets / name).is_file():
            problems.append(f"{eid}: fix snippet {name} does not exist")
            continue
        sources[name] = (snippets / name).read_text()
        ran = known.get(name, {})
        for r in runs:  # a fix that still prints the message its entry answers fixes nothing
            if r["snippet"] == f"snippets/{name}" and r["env"] in reproduced and warned(r):
                problems.append(f"{eid}: fix snippet {name} still printed what the entry's signatures match on {r['env']}")
        if not any(ran.get(env) == "passed" for env in reproduced):
            problems.append(f"{eid}: fix snippet {name} passed in no environment where the error was reproduced "
                            f"({', '.join(reproduced)}): {ran}")
    for env in reproduced:
        got = {name: known.get(name, {}).get(env) for name in sources}
        if not any(v == "passed" for v in got.values()) and not all(v == "not-applicable" for v in got.values()):
            problems.append(f"{eid}: in {env}, where the error was reproduced, no fix snippet passed: {got}")
    for lang, text in (("en", fix), ("zh", meta_zh.get("fix") or "")):
        names = api_names(text)
        if lang == "en" and not names:
            problems.append(f"{eid}: `fix:` puts no API name in backticks, so nothing ties it to a fix snippet")
        if lang == "zh" and sorted(names) != sorted(api_names(fix)):
            problems.append(f"{eid}: the Chinese `fix:` backticks {names}, the English one {api_names(fix)}")
        prose = re.sub(r"\bTFD\d{3}\b", "", BACKTICKED.sub("", text))  # entry IDs are not versions
        if re.search(r"\d", prose):
            problems.append(f"{eid} ({lang}): `fix:` types a number outside code (a version?): {prose!r}")
        for name in names:
            users = [s for s, source in sources.items() if uses(source, name)]
            if not users:
                problems.append(f"{eid} ({lang}): `{name}` is used by none of its fix snippets {sorted(sources)}")
                continue
            for env in reproduced:
                got = [known.get(s, {}).get(env) for s in users]
                if "passed" not in got and not all(v == "not-applicable" for v in got):
                    problems.append(f"{eid} ({lang}): `{name}` is in {users}, none of which passed in {env}, "
                                    f"where the error was reproduced ({got})")
    return problems


def _meta(eid: str, lang: str) -> dict:
    return registry.front_matter(DOCS / "e" / (f"{eid}.md" if lang == "en" else f"{eid}.{lang}.md"))[0]


@pytest.mark.parametrize("eid", [e.id for e in PUBLISHED])
def test_fix_names_snippets_that_hold_where_the_error_was_reproduced(eid):
    problems = fix_problems(eid, _meta(eid, "en"), _meta(eid, "zh"), RUNS, ROOT / "snippets")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("mutation", ["opposite advice", "typed version", "a fix snippet that fails",
                                      "a wrong result named as the fix", "no fix snippets"])
def test_mutation_fix_is_caught(tmp_path, mutation):
    """A copy of an entry's front matter with `fix:` turned into the opposite advice (an API none of
    its fix snippets uses), a typed version, a failing snippet or one that prints its documented
    wrong result named as the fix, or no fix snippets."""
    eid = "TFD014" if mutation == "a wrong result named as the fix" else "TFD001"
    meta, meta_zh = dict(_meta(eid, "en")), dict(_meta(eid, "zh"))
    assert fix_problems(eid, meta, meta_zh, RUNS, ROOT / "snippets") == []
    if mutation == "a wrong result named as the fix":
        meta["fix_snippets"] = ["TFD014/mean_of_replica_means.py"]
        expected = "passed in no environment where the error was reproduced"
    elif mutation == "opposite advice":
        meta["fix"] = ("Create the optimizer after `strategy.scope()` has ended, as a "
                       "`tf.compat.v1.train.AdamOptimizer`, and let the first step create its slots.")
        meta_zh["fix"] = "在 `strategy.scope()` 结束之后再创建优化器，用 `tf.compat.v1.train.AdamOptimizer`，让第一步去创建槽变量。"
        expected = "`tf.compat.v1.train.AdamOptimizer` is used by none of its fix snippets"
    elif mutation == "typed version":
        meta["fix"] += " Upgrade to TF 2.11."
        expected = "types a number outside code"
    elif mutation == "a fix snippet that fails":
        meta["fix_snippets"] = ["TFD001/build_optimizer_outside_scope.py"]
        expected = "where the error was reproduced, no fix snippet passed"
    else:
        del meta["fix_snippets"]
        expected = "front matter needs `fix_snippets:`"
    problems = fix_problems(eid, meta, meta_zh, RUNS, ROOT / "snippets")
    assert any(expected in p for p in problems), problems


# --------------------------------------------------------------------------------------------
# The two languages move together.

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CALL = re.compile(r"\b(\w+)\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)")


def structure(text: str) -> dict[str, list[str]]:
    """What must be the same in both languages: heading levels in order, explicit anchors, macro
    calls (function and arguments, whitespace ignored), snippet includes and admonition kinds."""
    out: dict[str, list[str]] = {"headings": [], "anchors": [], "macro calls": [], "includes": [], "boxes": []}
    fence = None
    for line in registry_body(text).split("\n"):
        for inner in re.findall(r"\{\{(.*?)\}\}", line):
            out["macro calls"] += [name + "(" + re.sub(r"\s+", "", args) + ")" for name, args in _CALL.findall(inner)]
        include = re.match(r'\s*--8<--\s+"([^"]+)"', line)
        if include:
            out["includes"].append(include.group(1))
        marker = _FENCE.match(line)
        if marker:
            fence = None if fence and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) else (fence or marker.group(1))
            continue
        if fence:
            continue
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        if heading:
            out["headings"].append("#" * len(heading.group(1)))
            out["anchors"] += re.findall(r"\{\s*#([\w-]+)", heading.group(2))
        out["anchors"] += re.findall(r"<a\s[^>]*\b(?:id|name)=\"([^\"]+)\"", line)
        box = re.match(r"\s*(!!!|\?\?\?\+?)\s+([\w-]+)", line)
        if box:
            out["boxes"].append(f"{box.group(1)} {box.group(2)}")
    return out


def registry_body(text: str) -> str:
    match = re.match(r"^---\n.*?\n---\n", text, re.DOTALL)
    return text[match.end():] if match else text


def parity_problems(english: str, chinese: str, name: str) -> list[str]:
    en, zh = structure(english), structure(chinese)
    problems = []
    for key in en:
        if en[key] != zh[key]:
            diff = [d for d in difflib.unified_diff(en[key], zh[key], "en", "zh", lineterm="", n=0)
                    if not d.startswith(("---", "+++", "@@"))]
            problems.append(f"{name}: {key} differ between the languages ({len(en[key])} in English, "
                            f"{len(zh[key])} in Chinese): " + "; ".join(diff[:6]))
    return problems


PAIRS = sorted(p for p in DOCS.rglob("*.md") if not p.name.endswith(".zh.md"))


def test_every_page_has_a_chinese_page():
    assert [p.relative_to(DOCS) for p in PAIRS if not p.with_name(p.stem + ".zh.md").exists()] == []


@pytest.mark.parametrize("page", PAIRS, ids=[str(p.relative_to(DOCS)) for p in PAIRS])
def test_chinese_page_has_the_english_structure(page):
    zh = page.with_name(page.stem + ".zh.md")
    assert structure(page.read_text())["headings"], page
    assert parity_problems(page.read_text(), zh.read_text(), str(page.relative_to(DOCS))) == []


def section_heading_problems(english: str, chinese: str, name: str) -> list[str]:
    """An entry's standard sections (scaffold.SECTIONS) carry the same Chinese heading on every page:
    where the English heading is "Why" or "Why: ...", the Chinese one is "原因" or "原因：...". """
    problems = []
    en = [h for h in re.findall(r"^## (.*)$", registry_body(english), re.M)]
    zh = [h for h in re.findall(r"^## (.*)$", registry_body(chinese), re.M)]
    for e, z in zip(en, zh):
        for english_name, chinese_name in scaffold.SECTIONS.items():
            if e == english_name or e.startswith(english_name + ":"):
                if not (z == chinese_name or z.startswith(chinese_name + "：") or z.startswith(chinese_name + " {")):
                    problems.append(f"{name}: the section {e!r} is headed {z!r} in Chinese, not {chinese_name!r}")
    return problems


ENTRY_PAIRS = [p for p in PAIRS if p.parent.name == "e"]


@pytest.mark.parametrize("page", ENTRY_PAIRS, ids=[p.stem for p in ENTRY_PAIRS])
def test_chinese_sections_have_one_set_of_headings(page):
    zh = page.with_name(page.stem + ".zh.md")
    assert re.search(r"^## Short answer$", page.read_text(), re.M), f"{page.stem} has its sections"
    assert section_heading_problems(page.read_text(), zh.read_text(), page.stem) == []


def test_mutation_another_chinese_heading_is_caught():
    english, chinese = (DOCS / "e" / "TFD001.md").read_text(), (DOCS / "e" / "TFD001.zh.md").read_text()
    mutated = chinese.replace("\n## 各版本对比", "\n## 各版本的结果", 1)
    assert mutated != chinese
    assert any("各版本的结果" in p for p in section_heading_problems(english, mutated, "TFD001"))


def test_the_scaffold_writes_those_headings():
    for english_name, chinese_name in scaffold.SECTIONS.items():
        assert f"\n## {english_name}\n" in scaffold.PAGE_EN.template
        assert f"\n## {chinese_name}\n" in scaffold.PAGE_ZH.template


def _without_last_section(text: str) -> str:
    lines = text.split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"##\s", line))
    return "\n".join(lines[:last]) + "\n"


@pytest.mark.parametrize("eid", ["TFD001", "TFD009", "TFD014"])
def test_mutation_last_chinese_section_deleted_is_caught(tmp_path, eid):
    copy = tmp_path / f"{eid}.zh.md"
    copy.write_text(_without_last_section((DOCS / "e" / f"{eid}.zh.md").read_text()))
    problems = parity_problems((DOCS / "e" / f"{eid}.md").read_text(), copy.read_text(), eid)
    assert any(p.startswith(f"{eid}: headings differ") for p in problems), problems


def test_mutation_macro_argument_changed_is_caught():
    english = (DOCS / "e" / "TFD001.md").read_text()
    chinese = (DOCS / "e" / "TFD001.zh.md").read_text()
    call = structure(chinese)["macro calls"][0]
    env = re.search(r'"(tf[\w.-]+)"', chinese)
    assert env, "TFD001.zh.md names no environment in a macro call"
    other = "tf2.4" if env.group(1) != "tf2.4" else "tf2.5"
    mutated = chinese.replace(f'"{env.group(1)}"', f'"{other}"', 1)
    assert call and any("macro calls differ" in p for p in parity_problems(english, mutated, "TFD001"))


# Titles: each language's title belongs to its ID.

_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


def _words(title: str) -> set[str]:
    return {w.rstrip(".-") for w in _WORD.findall(title)}


def _code_names(title: str) -> set[str]:
    """What a translation keeps: names with a dot or an underscore, CamelCase names, and the quoted messages."""
    names = {w for w in _words(title) if re.search(r"[._]|[a-z][A-Z]", w)}
    return names | set(re.findall(r"\u201c([^\u201d]+)\u201d", title))


def _h1(body: str) -> str | None:
    match = re.search(r"^# (.+)$", body, re.MULTILINE)
    return match.group(1).strip() if match else None


def title_problems(e_dir: Path, rendered: dict[str, str]) -> list[str]:
    """Each language's titles against the registry, the pages' H1s and the error index of each
    language (`rendered`: the error index each language's page shows)."""
    problems = []
    shown = {lang: dict(re.findall(r"^## (TFD\d{3}): (.+)$", text, re.MULTILINE)) for lang, text in rendered.items()}
    for entry in PUBLISHED:
        en_meta, en_body = registry.front_matter(e_dir / f"{entry.id}.md")
        zh_meta, zh_body = registry.front_matter(e_dir / f"{entry.id}.zh.md")
        en, zh = en_meta.get("title"), zh_meta.get("title")
        if not (en == entry.title == _h1(en_body)):
            problems.append(f"{entry.id}: registry title {entry.title!r}, page title {en!r}, H1 {_h1(en_body)!r}")
        if not zh or zh != _h1(zh_body):
            problems.append(f"{entry.id}: Chinese page title {zh!r}, its H1 {_h1(zh_body)!r}")
            continue
        if not _words(zh) <= _words(en):
            problems.append(f"{entry.id}: the Chinese title has words the English one lacks: {sorted(_words(zh) - _words(en))}")
        missing = sorted(name for name in _code_names(en) if name not in zh)
        if missing:
            problems.append(f"{entry.id}: the Chinese title lacks the English title's {missing}")
        for lang, title in (("en", en), ("zh", zh)):
            if shown.get(lang, {}).get(entry.id) != title:
                problems.append(f"{entry.id}: the {lang} error index shows {shown.get(lang, {}).get(entry.id)!r}, "
                                f"its page's title is {title!r}")
    return problems


def _rendered_error_index() -> dict[str, str]:
    out = {}
    try:
        for lang in i18n.LANGUAGES:
            i18n.set_language(lang)
            out[lang] = macros.error_index()
    finally:
        i18n.set_language(i18n.DEFAULT)
    return out


def test_titles_belong_to_their_ids():
    assert title_problems(DOCS / "e", _rendered_error_index()) == []


def test_no_two_chinese_titles_could_be_swapped_unnoticed():
    """The check above tells every pair of Chinese titles apart (each carries words of its own
    English title), so that a swap of any two is caught even where the front matter and the H1
    were swapped together."""
    titles = {e.id: (registry.front_matter(e.page)[0]["title"],
                     registry.front_matter(DOCS / "e" / f"{e.id}.zh.md")[0]["title"]) for e in PUBLISHED}

    def fits(en: str, zh: str) -> bool:
        return _words(zh) <= _words(en) and all(name in zh for name in _code_names(en))

    unnoticed = [(a, b) for a, b in itertools.combinations(sorted(titles), 2)
                 if fits(titles[a][0], titles[b][1]) and fits(titles[b][0], titles[a][1])]
    assert not unnoticed, unnoticed


def _swap_chinese_titles(e_dir: Path, a: str, b: str, h1_too: bool) -> None:
    pages = {eid: (e_dir / f"{eid}.zh.md") for eid in (a, b)}
    titles = {eid: registry.front_matter(page)[0]["title"] for eid, page in pages.items()}
    for eid, other in ((a, b), (b, a)):
        text = pages[eid].read_text()
        head, body = text.split("\n---\n", 1)
        head = head.replace(titles[eid], titles[other]) if titles[eid] in head else head
        if h1_too:
            body = body.replace(f"# {titles[eid]}\n", f"# {titles[other]}\n", 1)
        pages[eid].write_text(head + "\n---\n" + body)


@pytest.mark.parametrize("h1_too", [False, True], ids=["front matter", "front matter and H1"])
def test_mutation_two_chinese_titles_swapped_is_caught(tmp_path, monkeypatch, h1_too):
    docs = tmp_path / "docs"
    (docs / "e").mkdir(parents=True)
    for page in (DOCS / "e").glob("*.md"):
        (docs / "e" / page.name).write_text(page.read_text())
    _swap_chinese_titles(docs / "e", "TFD004", "TFD005", h1_too)
    monkeypatch.setattr(registry, "DOCS", docs)
    problems = title_problems(docs / "e", _rendered_error_index())
    assert any(p.startswith(("TFD004: ", "TFD005: ")) for p in problems), problems
    assert registry.front_matter(docs / "e" / "TFD004.zh.md")[0]["title"] == \
        registry.front_matter(DOCS / "e" / "TFD005.zh.md")[0]["title"]
