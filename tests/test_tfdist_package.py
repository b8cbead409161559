"""The user-facing `tfdist` package (tfdist/): the one matcher (normalisation, scoring, ID queries),
`tfdist explain` and its exit codes on every kind of bad input, `install()`/`lookup()`/`annotate()`,
and that the package installs and runs on Python 3.7. Against a small handmade error index
($TFDIST_DATA), except for the test of the shipped data file."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tfdist" / "src"
sys.path.insert(0, str(PACKAGE))

import tfdist  # noqa: E402
from tfdist import matcher  # noqa: E402

BASE = "http://kb.test/"
SLOT = "ValueError: Trying to create optimizer slot variable under the scope for tf.distribute.Strategy (<x>)"


def entry(eid, signatures, status="published", title=None, tags=()):
    return {"id": eid, "title": title or f"Title of {eid}", "path": f"e/{eid}/", "url": f"{BASE}e/{eid}/",
            "tags": list(tags), "status": status, "fix": f"Fix for {eid}.", "signatures": signatures,
            "reproduced": []}


INDEX = {"schema": 1, "base_url": BASE, "entries": [
    entry("TFD001", [r"optimizer slot variable", r"under the scope for tf\.distribute\.Strategy"], tags=["slot-variables"]),
    entry("TFD002", [r"slot variable"], tags=["build-timing"]),
    {"id": "TFD003", "title": "Retired", "path": "e/TFD003/", "url": f"{BASE}e/TFD003/", "status": "retired"},
    entry("TFD004", [r"banana split"]),
    entry("TFD005", [r"banana-split|banana split"]),
    entry("TFD006", [r"(?:banana) split"]),
    entry("TFD007", [r"banana\ssplit"]),  # \s counts 0: 11 < 12
    entry("TFD008", [r"banana"]),
    entry("TFD009", [r"\w+", r"[0-9]+"]),  # no literal character: never a result
    entry("TFD010", [r"retired entry words"], status="retired"),
    entry("TFD011", [r"Need to be inside \"with strategy\.scope\(\)\" for .{0,300}MirroredStrategy",
                     r"(", r"Mixing different tf\.distribute\.Strategy objects"]),
]}


@pytest.fixture(scope="module")
def index_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("index") / "errors.json"
    path.write_text(json.dumps(INDEX))
    return path


@pytest.fixture
def data(index_path):
    return matcher.load(str(index_path))


@pytest.fixture(autouse=True)
def no_base_url(monkeypatch):
    monkeypatch.delenv("TFDIST_BASE_URL", raising=False)


def environ(index_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("TFDIST_BASE_URL", "PYTHONPATH")}
    env.update(PYTHONPATH=str(PACKAGE), TFDIST_DATA=str(index_path), PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def tfdist_cli(index_path, *args, stdin=b"", python=sys.executable, timeout=60, **extra):
    return subprocess.run([python, "-m", "tfdist", *args], input=stdin, capture_output=True,
                          env=environ(index_path, **extra), cwd=ROOT, timeout=timeout)


def one_line_error(result, code=2):
    stderr = result.stderr.decode()
    assert result.returncode == code, (result.returncode, stderr)
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    return stderr


# ---------------------------------------------------------------- normalise and scoring

@pytest.mark.parametrize("raw, expected", [
    ("> ValueError: a\n> b", "ValueError: a b"),
    (">> quoted twice\n> > and again", "quoted twice and again"),
    ("E   ValueError: x\nE       more\nE\nE   end", "ValueError: x more end"),
    ("> E   ValueError: x", "ValueError: x"),
    ("in tensorf\\\n    low.python.distribute", "in tensorflow.python.distribute"),
    ("> tensorf\\\n>     low.python", "tensorflow.python"),
    ("it\u2019s \u2018a\u2019 \u201cb\u201d", "it's 'a' \"b\""),
    ("\x1b[31mValueError\x1b[0m:   x\r\n\t y  ", "ValueError: x y"),
    ("Error: keeps Case", "Error: keeps Case"),
    ("   \n\t ", ""),
])
def test_normalise(raw, expected):
    assert matcher.normalise(raw) == expected


@pytest.mark.parametrize("pattern, score", [
    ("abc", 3), (r"a\.b", 3), (r"f\(\)", 3), ("ab?c", 2), ("a(bc)?d", 2), ("a(b|cde)f", 3), ("a|bcd", 1),
    (r"\d+ replicas", 9), ("[abc]x", 1), ("x{2,3}", 1), ("x{0,3}y", 1), ("x{,3}y", 1), ("x+", 1),
    ("a.*b", 2), ("a.{0,200}b", 2), ("(?i)foo", 3), ("(?:ab|c)d", 2), ("(?P<n>ab)(?P=n)", 2),
    ("(?!no)yes", 3), ("(?#comment)d", 1), (r"\w+", 0), ("^$", 0), (r"\bword\b", 4),
])
def test_literal_score(pattern, score):
    assert matcher.literal_score(pattern) == score


def test_entry_score_is_best_signature_plus_one_per_further_match(data):
    results = tfdist.match(SLOT, data)
    assert [(r["id"], r["score"]) for r in results] == [("TFD001", 42 + 1), ("TFD002", 13)]
    assert results[0]["matched"] == INDEX["entries"][0]["signatures"]
    assert tfdist.match("an optimizer slot variable", data)[0]["score"] == 23


def test_ties_broken_by_id_and_signatures_without_literals_ignored(data):
    results = tfdist.match("banana split", data)
    assert [(r["id"], r["score"]) for r in results] == [
        ("TFD004", 12), ("TFD005", 12), ("TFD006", 12), ("TFD007", 11), ("TFD008", 6)]
    assert not any(r["id"] == "TFD009" for r in tfdist.match("word 123", data))


def test_retired_entries_never_match_and_invalid_signatures_are_skipped(data):
    assert tfdist.match("retired entry words", data) == []
    assert tfdist.match("Mixing different tf.distribute.Strategy objects", data)[0]["id"] == "TFD011"
    assert any("not a valid regular expression" in p for p in matcher.check(data))


def test_result_shape_and_base_url_override(data, monkeypatch):
    found = tfdist.best(SLOT, data)
    assert set(found) >= {"id", "title", "url", "tags", "fix", "score"}
    assert found["url"] == BASE + "e/TFD001/" and found["tags"] == ["slot-variables"] and found["fix"] == "Fix for TFD001."
    monkeypatch.setenv("TFDIST_BASE_URL", "https://mirror.example/kb")
    assert tfdist.best(SLOT, data)["url"] == "https://mirror.example/kb/e/TFD001/"
    assert tfdist.explain("TFD002", data)[0]["url"] == "https://mirror.example/kb/e/TFD002/"


def test_only_the_end_of_a_huge_text_is_matched_quickly(data):
    huge = "x" * (50 * 1024 * 1024) + "\n" + SLOT
    started = time.perf_counter()
    assert tfdist.best(huge, data)["id"] == "TFD001"
    assert tfdist.match(SLOT + "\n" + "x" * (50 * 1024 * 1024), data) == []  # its start is not read
    # a log that repeats an almost-matching line (a `.{0,300}` signature's worst case)
    noisy = 'Need to be inside "with strategy.scope()" for ' * (1024 * 1024)
    assert tfdist.match(noisy, data) == []
    assert time.perf_counter() - started < 3


# ---------------------------------------------------------------- ID queries

@pytest.mark.parametrize("query", ["TFD001", "tfd001", "  TfD001\n"])
def test_id_query_returns_that_entry_only(data, query):
    assert [(r["id"], r["score"]) for r in tfdist.explain(query, data)] == [("TFD001", matcher.ID_SCORE)]


@pytest.mark.parametrize("query, message", [
    ("TFD1", "is not an entry ID"), ("TFD9999", "is not an entry ID"), ("tfd", "is not an entry ID"),
    ("TFD999", "is not a known entry"), ("TFD003", "is retired"),
])
def test_bad_id_exits_2_listing_known_ids(index_path, data, query, message):
    with pytest.raises(tfdist.QueryError):
        tfdist.explain(query, data)
    stderr = one_line_error(tfdist_cli(index_path, "explain", query))
    assert message in stderr and "known: TFD001, TFD002, TFD004" in stderr and "TFD003," not in stderr


# ---------------------------------------------------------------- the command

def test_explain_prints_id_title_fix_and_url(index_path):
    result = tfdist_cli(index_path, "explain", SLOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines()[:3] == [
        "TFD001  Title of TFD001", "  fix: Fix for TFD001.", f"  {BASE}e/TFD001/"]
    assert "TFD002" in result.stdout.decode()


def test_explain_shows_three_best_and_ties(index_path):
    out = tfdist_cli(index_path, "explain", "banana", "split").stdout.decode()  # words are joined
    shown = [line.split()[0] for line in out.splitlines() if line.startswith("TFD")]
    assert shown == ["TFD004", "TFD005", "TFD006"]
    out = tfdist_cli(index_path, "explain", "banana split", TFDIST_DATA=str(_with_tie(index_path))).stdout.decode()
    assert [line.split()[0] for line in out.splitlines() if line.startswith("TFD")] == [
        "TFD004", "TFD005", "TFD006", "TFD012"]


def _with_tie(index_path):
    path = index_path.parent / "with-tie.json"
    path.write_text(json.dumps(dict(INDEX, entries=INDEX["entries"] + [entry("TFD012", ["split banana|banana split"])])))
    return path


def test_explain_json(index_path):
    result = tfdist_cli(index_path, "explain", "--json", SLOT)
    assert result.returncode == 0
    items = json.loads(result.stdout)
    assert [i["id"] for i in items] == ["TFD001", "TFD002"]
    for item in items:
        assert {"id", "title", "url", "tags", "score"} <= set(item) and isinstance(item["tags"], list)
    assert json.loads(tfdist_cli(index_path, "explain", "--json", "tfd002").stdout) == [
        {"id": "TFD002", "title": "Title of TFD002", "url": f"{BASE}e/TFD002/", "tags": ["build-timing"],
         "fix": "Fix for TFD002.", "score": matcher.ID_SCORE, "matched": []}]
    nothing = tfdist_cli(index_path, "explain", "--json", "nothing here")
    assert nothing.returncode == 1 and json.loads(nothing.stdout) == []


def test_explain_reads_a_file_and_stdin_and_never_guesses_a_path(index_path, tmp_path):
    log = tmp_path / "train.log"
    log.write_text("Traceback (most recent call last):\n  ...\n> E   " + SLOT + "\n")
    assert tfdist_cli(index_path, "explain", "--file", str(log)).stdout.startswith(b"TFD001")
    assert tfdist_cli(index_path, "explain", f"--file={log}").returncode == 0
    assert tfdist_cli(index_path, "explain", "-", stdin=log.read_bytes()).stdout.startswith(b"TFD001")
    assert tfdist_cli(index_path, "explain", "-", stdin=b"tfd004\n").stdout.startswith(b"TFD004")
    stderr = one_line_error(tfdist_cli(index_path, "explain", str(log)), code=1)
    assert "no entry matches" in stderr and "--file" in stderr


def test_explain_with_a_traceback_in_the_environment_of_a_mirror(index_path):
    result = tfdist_cli(index_path, "explain", SLOT, TFDIST_BASE_URL="https://mirror.example/kb/")
    assert "  https://mirror.example/kb/e/TFD001/" in result.stdout.decode().splitlines()


NOT_UTF8 = "caf\u00e9 ValueError".encode("latin-1")


@pytest.mark.parametrize("args, stdin, message", [
    ([], b"", "nothing to explain"),
    ([""], b"", "the input is empty"),
    (["  \n\t "], b"", "the input is empty"),
    (["-"], b"", "the input is empty"),
    (["-"], b" \n\n\t\n", "the input is empty"),
    (["-"], b"ValueError\x00\x01\x02", "binary"),
    (["-"], NOT_UTF8, "not UTF-8"),
    (["-"], b"ok \xe2\x80", "not UTF-8"),
    (["--file", "BINARY"], b"", "binary"),
    (["--file", "LATIN1"], b"", "not UTF-8"),
    (["--file", "EMPTY"], b"", "the input is empty"),
    (["--file", "/nonexistent/x.log"], b"", "cannot read"),
    (["--file"], b"", "--file needs a path"),
    (["--bogus", "x"], b"", "unknown option"),
])
def test_bad_input_gives_one_line_and_exit_2(index_path, tmp_path, args, stdin, message):
    files = {"BINARY": b"\x7fELF\x02\x01\x01\x00\x00" * 100, "LATIN1": NOT_UTF8, "EMPTY": b""}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    args = [str(tmp_path / a) if a in files else a for a in args]
    assert message in one_line_error(tfdist_cli(index_path, "explain", *args, stdin=stdin))


def test_non_utf8_argument_exits_2(index_path):
    result = subprocess.run([sys.executable.encode(), b"-m", b"tfdist", b"explain", NOT_UTF8],
                            capture_output=True, env=environ(index_path), cwd=ROOT, timeout=60)
    assert "not UTF-8" in one_line_error(result)


@pytest.mark.parametrize("tail, code", [(b"", 1), (SLOT.encode(), 0)])
def test_50_mb_on_stdin_is_answered_quickly(index_path, tail, code):
    big = b"INFO step 1234: loss=0.25 apple\n" * (50 * 1024 * 1024 // 32) + tail
    started = time.perf_counter()
    result = tfdist_cli(index_path, "explain", "-", stdin=big)
    seconds = time.perf_counter() - started
    stderr = one_line_error(result, code)
    assert "the last 200 kB of this" in stderr
    assert seconds < 5, f"{seconds:.1f} s for 50 MB"


def test_knowledge_base_commands(index_path):
    result = tfdist_cli(index_path, "run", "snippets/none.py")  # tfdist_kb is importable here
    assert "no such snippet file" in one_line_error(result)
    alone = subprocess.run([sys.executable, "-S", "-m", "tfdist", "matrix"], capture_output=True,
                           env=environ(index_path), cwd="/", timeout=60)  # no site-packages: no tfdist_kb
    assert "needs the knowledge base repository" in one_line_error(alone)
    assert tfdist_cli(index_path, "--help").stdout.startswith(b"usage: tfdist explain")
    assert tfdist_cli(index_path, "--version").stdout.decode().strip() == f"tfdist {tfdist.__version__}"


# ---------------------------------------------------------------- install(), lookup(), annotate()

def run_script(index_path, code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=environ(index_path), cwd=ROOT, timeout=60)


def test_install_adds_one_line_after_the_traceback(index_path):
    result = run_script(index_path, f"""
        import tfdist
        tfdist.install()
        tfdist.install()  # twice is once
        raise ValueError({SLOT.split(': ', 1)[1]!r})
        """)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-2] == "ValueError: " + SLOT.split(": ", 1)[1]
    assert lines[-1] == f"tfdist: TFD001 Title of TFD001 {BASE}e/TFD001/"
    assert sum("tfdist:" in line for line in lines) == 1


def test_install_is_silent_when_nothing_matches_and_keeps_exit_status(index_path):
    result = run_script(index_path, "import tfdist\ntfdist.install()\nraise KeyError('nothing known')\n")
    assert result.returncode == 1 and result.stderr.strip().splitlines()[-1] == "KeyError: 'nothing known'"
    result = run_script(index_path, f"import sys, tfdist\ntfdist.install()\nsys.exit(3)\n")
    assert result.returncode == 3 and result.stderr == ""
    result = run_script(index_path, f"import sys, tfdist\ntfdist.install()\nsys.exit({SLOT!r})\n")
    assert result.returncode == 1 and result.stderr.strip() == SLOT  # SystemExit is not an error to explain


def test_install_keeps_a_previous_excepthook(index_path):
    result = run_script(index_path, f"""
        import sys, tfdist
        sys.excepthook = lambda *info: print("previous hook", file=sys.stderr)
        tfdist.install()
        raise RuntimeError({SLOT!r})
        """)
    assert result.stderr.splitlines() == ["previous hook", f"tfdist: TFD001 Title of TFD001 {BASE}e/TFD001/"]


def test_install_covers_threads(index_path):
    result = run_script(index_path, f"""
        import threading, tfdist
        tfdist.install()
        def work():
            raise ValueError({SLOT!r})
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        print("main goes on")
        """)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 0 and result.stdout == "main goes on\n"
    assert lines[0].startswith("Exception in thread") and lines[-1].startswith("tfdist: TFD001 ")


def test_install_covers_ipython(index_path):
    ipython = Path(sys.executable).with_name("ipython")
    if not ipython.exists():
        pytest.skip("IPython is not installed in this environment")
    code = f"import tfdist; tfdist.install(); tfdist.install(); raise ValueError({SLOT!r})"
    result = subprocess.run([str(ipython), "--quick", "--no-banner", "--colors=NoColor", "-c", code],
                            capture_output=True, text=True, env=environ(index_path), cwd=ROOT, timeout=120)
    assert "ValueError" in result.stdout and "Traceback" in result.stdout
    assert result.stderr.strip().splitlines() == [f"tfdist: TFD001 Title of TFD001 {BASE}e/TFD001/"]


def test_lookup_text_and_exception_chain(data):
    assert tfdist.lookup(SLOT, data)["id"] == "TFD001"
    assert tfdist.lookup("nothing", data) is None
    try:
        try:
            raise KeyError("banana split")
        except KeyError as inner:
            raise RuntimeError("wrapping") from inner
    except RuntimeError as error:
        assert matcher.exception_text(error) == "RuntimeError: wrapping\nKeyError: 'banana split'"
        assert tfdist.lookup(error, data)["id"] == "TFD004"
    assert tfdist.lookup(ValueError(), data) is None


def test_an_exception_with_no_message_is_named_by_where_it_was_raised(tmp_path):
    """A bare `assert` has no message: its innermost frame and source line, as Python prints them, are
    what the matcher reads (TF 1.13's `assert not as_ref` of TFD011); one with a message is not given
    its frame (a user's file could hold any words)."""
    source = tmp_path / "values.py"
    source.write_text("def _tensor_conversion_mirrored(as_ref):\n    assert not as_ref\n    return 1\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    data = {"schema": 1, "base_url": BASE, "entries": [
        entry("TFD011", [r"values\.py\W+(?:line )?\d+\W+(?:in )?_tensor_conversion\w*\W+assert not as_ref"])]}
    try:
        namespace["_tensor_conversion_mirrored"](True)
    except AssertionError as error:
        assert matcher.exception_text(error) == (f'  File "{source}", line 2, in _tensor_conversion_mirrored\n'
                                                 "    assert not as_ref\nAssertionError")
        assert tfdist.lookup(error, data)["id"] == "TFD011"
    try:
        raise AssertionError("assert not as_ref in values.py")
    except AssertionError as error:
        assert matcher.exception_text(error) == "AssertionError: assert not as_ref in values.py"
        assert tfdist.lookup(error, data) is None


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes (PEP 678) are Python 3.11+")
def test_annotate_adds_a_note_once(data):
    error = ValueError(SLOT)
    assert tfdist.annotate(error, data) is error and tfdist.annotate(error, data) is error
    assert error.__notes__ == [f"tfdist: TFD001 Title of TFD001 {BASE}e/TFD001/"]
    plain = KeyError("x")
    assert tfdist.annotate(plain, data) is plain and not hasattr(plain, "__notes__")


# ---------------------------------------------------------------- the shipped data, the package

def test_shipped_index_loads_and_is_sound():
    path = PACKAGE / "tfdist" / "data" / "errors.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == 1 and data["base_url"].endswith("/")
    assert matcher.check(data) == []
    for item in data["entries"]:
        assert {"id", "title", "path", "url", "status"} <= set(item)
        if item["status"] == "published":
            assert {"tags", "fix", "signatures", "reproduced"} <= set(item)
    # every signature, on a log that repeats each recorded message (a long run that fails the same
    # way over and over) and on 50 MB of filler: bounded time, no catastrophic pattern
    messages = [f"{r['exception']}: {r['headline']}" for item in data["entries"] for r in item.get("reproduced") or []]
    started = time.perf_counter()
    for message in messages[:20]:
        tfdist.match((message + "\n") * (matcher.MAX_TEXT // max(1, len(message))), data)
    tfdist.match("a" * (50 * 1024 * 1024), data)
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize("query, code, expected", [
    ("tfd001", 0, "/e/TFD001/"), ("TFD1", 2, "is not an entry ID"), ("TFD999", 2, "is not a known entry")])
def test_explain_by_id_with_the_shipped_index(query, code, expected):
    env = {k: v for k, v in os.environ.items() if k not in ("TFDIST_DATA", "TFDIST_BASE_URL")}
    result = subprocess.run([sys.executable, "-m", "tfdist", "explain", query], capture_output=True, text=True,
                            env=dict(env, PYTHONPATH=str(PACKAGE)), cwd=ROOT, timeout=60)
    assert result.returncode == code, result.stderr
    if code == 0:
        assert result.stdout.startswith("TFD001  ") and expected in result.stdout
    else:
        assert expected in result.stderr and "TFD001" in result.stderr and len(result.stderr.splitlines()) == 1


def python37():
    from tfdist_kb.proof import envs  # pyenv (PYENV_ROOT honoured) or PATH, as the environments find it

    try:
        return str(envs.find_interpreter("3.7"))
    except envs.EnvError:
        return None


@pytest.mark.skipif(python37() is None, reason="no Python 3.7 interpreter")
def test_installs_and_runs_on_python_37(tmp_path, index_path):
    uv = Path(sys.executable).with_name("uv")
    if not uv.exists():
        pytest.skip("uv is not installed in this environment")
    source = tmp_path / "tfdist"
    shutil.copytree(ROOT / "tfdist", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([str(uv), "venv", "-q", "--python", python37(), str(venv)], check=True, timeout=120)
    subprocess.run([str(uv), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(source)],
                   check=True, timeout=300)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TFDIST_DATA", "TFDIST_BASE_URL")}
    shipped = json.loads((PACKAGE / "tfdist" / "data" / "errors.json").read_text(encoding="utf-8"))
    first = next(e for e in shipped["entries"] if e["status"] == "published")
    result = subprocess.run([python, "-m", "tfdist", "explain", first["id"]], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith(first["id"]), result.stderr
    assert subprocess.run([str(venv / "bin" / "tfdist"), "explain", "  "], capture_output=True,
                          env=env, cwd=tmp_path, timeout=60).returncode == 2
    # the shipped signatures compile under Python 3.7's `re`, and install() covers 3.7's threads
    compiled = subprocess.run([python, "-c", "import re, tfdist\nfor e in tfdist.load()['entries']:\n"
                               "    [re.compile(s, re.IGNORECASE) for s in e.get('signatures') or []]\n"
                               "print(tfdist.__file__)"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert compiled.returncode == 0 and str(venv) in compiled.stdout, compiled.stderr
    thread = subprocess.run([python, "-c", textwrap.dedent(f"""
        import threading, tfdist
        tfdist.install()
        class Worker(threading.Thread):
            def run(self):
                raise ValueError({SLOT!r})
        worker = Worker()
        worker.start()
        worker.join()
        """)], capture_output=True, text=True, env=dict(env, TFDIST_DATA=str(index_path)), cwd=tmp_path, timeout=60)
    lines = thread.stderr.strip().splitlines()
    assert thread.returncode == 0 and sum(line.startswith("tfdist: TFD001 ") for line in lines) == 1, thread.stderr
    assert any(line.startswith("Exception in thread") for line in lines)
    assert lines[-1] == "ValueError: " + SLOT  # the line comes just before the traceback on 3.7
