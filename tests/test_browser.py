"""The built site in a real browser: Debian's Chromium driven by Playwright, the site served over
http on 127.0.0.1 (the `served_site` fixture of conftest.py).

Both languages load, the language switch keeps the entry, the copy button copies the code, no
request leaves 127.0.0.1, no console errors, tables fit at 1280 px and on a 390 px phone, code
blocks do not scroll sideways on the phone, and the search box finds what `tfdist explain` finds
(IDs, recorded error headlines, pastes from real issues) and the Chinese terms readers use, however
the text arrives (a paste with no key event, an input method's commit), and a pasted error's page is
not covered in highlights. Screenshots of home and /e/TFD001/ in each language at both widths are
kept in test-output/screenshots/.

Fast by design: one browser per session, one reused tab per viewport, and every page is loaded
once per viewport (the `visits` fixture), its facts recorded for the tests that read them.
"""
from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tfdist import matcher
from tfdist_kb.proof import evidence
from tfdist_kb.site import registry

ROOT = registry.ROOT
VIEWPORTS = {
    "desktop": dict(viewport={"width": 1280, "height": 800}),
    "phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=3),
}
LANGS = {"en": "", "zh": "/zh"}  # each language's URL prefix
SCREENSHOTS = ROOT / "test-output" / "screenshots"
REAL_ERRORS = ROOT / "tests" / "corpus" / "real_errors.jsonl"  # real pastes (tests/corpus/README.md)

ENTRIES = [e.id for e in registry.load().values() if e.status == "published"]
REFERENCE = ["errors"]  # reference pages measured like entries (tables and messages fit): /errors/, /zh/errors/
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

# Pastes quoted in issue 8, each with the entry expected when the matcher has no answer of its own.
ISSUE_PASTES = [('Need to be inside "with strategy.scope()"', "TFD003"), ("global_replica_id: 0", "TFD004")]
CHINESE_TERMS = [("优化器", "TFD001"), ("槽变量", "TFD001"), ("滑动平均", "TFD005"), ("副本", "TFD004")]
# Questions in readers' own words (issue 21): each finds its entry among the first 3 results.
QUESTIONS = [
    ("why does my optimizer complain about slot variables under MirroredStrategy", "TFD001"),
    ("optimizer was created before strategy.scope and apply_gradients fails", "TFD001"),
    ("are the weights of a model built outside the strategy scope mirrored", "TFD002"),
    ("when are keras weights created with a distribution strategy", "TFD002"),
    ("custom training loop gives opposite results on two tensorflow releases", "TFD003"),
    ("load_model under MirroredStrategy only uses one replica", "TFD004"),
    ("ExponentialMovingAverage with MirroredStrategy fails", "TFD005"),
    ("moving average of weights in a distributed custom loop", "TFD005"),
    ("No OpKernel was registered to support Op NcclAllReduce", "TFD006"),
    ("can I use two different strategies in one program", "TFD007"),
    ("mixing strategies in one process", "TFD007"),
    ("compile says the optimizer was created under another strategy scope", "TFD008"),
    ("merge_call called inside a nested tf.function", "TFD009"),
    ("gradient accumulation mirrored strategy", "TFD010"),
    ("how to accumulate gradients over several steps with MirroredStrategy", "TFD010"),
    ("what is the difference between replica context and cross-replica context", "TFD011"),
    ("my updates are 4 times too large with 4 GPUs, how should I scale the loss", "TFD012"),
    ("restore a checkpoint under MirroredStrategy", "TFD013"),
    ("how do I split a dataset across replicas and gather per-replica results", "TFD014"),
    ("how to save a model trained under MirroredStrategy", "TFD015"),
    ("training a second model in the same process fails with a shape mismatch in the collective", "TFD016"),
    ("experimental_run_v2 no longer exists", "TFD017"),
    ("your input ran out of data when training with a strategy", "TFD018"),
    ("embedding layer sparse gradients with MirroredStrategy", "TFD019"),
    ("how do I get 4 replicas on one machine with virtual devices", "TFD020"),
    ("mixed precision LossScaleOptimizer weights become NaN with MirroredStrategy", "TFD021"),
    ("tf.function input_signature fails with a distributed dataset batch", "TFD022"),
    ("MultiWorkerMirroredStrategy must be created at program startup", "TFD023"),
    ("multi-worker training with too few files to shard", "TFD025"),
    ("how to resume multi-worker training after a worker dies", "TFD024"),
    ("jit_compile=True fails under MirroredStrategy", "TFD026"),
    ("ops explicitly assigned to /job:localhost with a TF_CONFIG cluster", "TFD027"),
    ("DistributedDataset has no attribute map", "TFD028"),
    ("keras fit with class_weight on a distributed dataset", "TFD028"),
    ("integer variable with aggregation MEAN under MirroredStrategy", "TFD029"),
    ("where should each worker write when saving with MultiWorkerMirroredStrategy", "TFD030"),
    ("one worker has uneven input and training hangs", "TFD031"),
    ("can't copy a string tensor to the GPU", "TFD032"),
    ("fit_generator is not supported with MirroredStrategy", "TFD017"),
    ("tf.contrib.distribute.MirroredStrategy no longer works in TensorFlow 2", "TFD017"),
    ("How do I add up the loss that strategy.run returns in a loop?", "TFD033"),
    ("TypeError unsupported operand PerReplica and PerReplica", "TFD033"),
    ("What does 'Using MirroredStrategy eagerly has significant overhead' mean?", "TFD035"),
    ("Why is strategy.run slow when called without tf.function?", "TFD035"),
    ("why do embedding gradients fail with MultiWorkerMirroredStrategy", "TFD036"),
    ("all_reduce_indexed_slices in eager mode is not supported in a custom training loop", "TFD036"),
    ("Keras 3 model.fit fails with MultiWorkerMirroredStrategy", "TFD038"),
    ("Invalid reduction dimension 0 for input with 0 dimensions multi-worker", "TFD038"),
    ("why does one replica get an empty batch at the end of the epoch", "TFD037"),
    ("Dimension -2147483648 must be >= 0 when training on several GPUs", "TFD037"),
    ("why do my multi-worker workers fail with unknown device", "TFD039"),
    ("the host list order differs between workers", "TFD039"),
    ("Keras predict fails with could not broadcast input array under MirroredStrategy", "TFD040"),
    ("dataset_fn returns a dataset made outside and the workers fail with Unable to parse tensor proto", "TFD041"),
    ("how do I create the dataset for ParameterServerStrategy workers", "TFD041"),
    ("How do I use model.fit with ParameterServerStrategy?", "TFD047"),
    ("ParameterServerStrategy missing argument cluster_resolver", "TFD047"),
    ("my dataset returns x, y, None and fit fails with MirroredStrategy", "TFD048"),
    ("sample weights None in dataset under MirroredStrategy", "TFD048"),
    ("load_weights fails after training with MirroredStrategy", "TFD049"),
    ("restore the best weights from a weights.h5 file under MirroredStrategy", "TFD049"),
    ("how do I load a model trained with ParameterServerStrategy and a variable partitioner", "TFD042"),
    ("tf.saved_model.load fails on a ShardedVariable", "TFD042"),
    ("ParameterServerStrategy training fails when a parameter server goes down", "TFD043"),
    ("parameter server lost during training", "TFD043"),
    ("fit stops at the end of an epoch with CancelledError on several GPUs", "TFD044"),
    ("Operation was cancelled End of sequence in Keras fit with MirroredStrategy", "TFD044"),
    ("batch size not divisible by the number of GPUs fails with AddN", "TFD045"),
    ("small validation set fails evaluate with Keras 3 and MirroredStrategy", "TFD045"),
    ("can MirroredStrategy train across several machines in graph mode with TF_CONFIG", "TFD046"),
    ("variables placed on /job:chief after disable_eager_execution with MirroredStrategy", "TFD046"),
]


def home_path(lang: str) -> str:
    return LANGS[lang] + "/"


def entry_path(entry_id: str, lang: str) -> str:
    if entry_id in REFERENCE:
        return f"{LANGS[lang]}/{entry_id}/"
    return f"{LANGS[lang]}/e/{entry_id}/"


# ---------------------------------------------------------------- browser

class Tab:
    """One reused page, recording every request, failed response, console error and page error."""

    def __init__(self, context, base: str):
        self.context, self.base = context, base
        self.page = context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(
            f"HTTP {r.status} {r.url.removeprefix(self.base)} (on {self.here()})"))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e} (on {self.here()})"))

    def _console(self, message):
        # "Failed to load resource: the server responded with a status of 404" says less than the
        # response itself, which is recorded with its URL.
        if message.type == "error" and "the server responded with a status of" not in message.text:
            self.errors.append(f"console error: {message.text} (on {self.here()})")

    def here(self) -> str:
        return self.page.url.removeprefix(self.base)

    def reset(self) -> "Tab":
        self.requests.clear()
        self.errors.clear()
        return self

    def open(self, path: str) -> int:
        """Load `path`; its HTTP status."""
        response = self.page.goto(self.base + path)
        return response.status if response else 0

    def lang(self) -> str:
        return self.page.evaluate("document.documentElement.lang")

    def search(self, query: str, paste: bool = True, how: str = "keys") -> list[str]:
        """Paste `query` into the current page's search box (through the clipboard and Ctrl+V, as a
        reader does: Chromium turns its line breaks into spaces in the box, a `paste` listener sees
        them), or type it (`paste=False`): the paths of the result pages, best first (their whole
        links in `self.links`).

        `how` other than "keys": the text arrives with no key event reaching the page, as from a
        context menu's Paste, a phone's long press, an input method or a dictation: "menu" pastes
        through the clipboard (a real `paste` event, line breaks in its clipboardData) with every
        key event swallowed; "insert" inserts the text (an `input` event of type insertText);
        "ime" composes it with an input method and commits it (`compositionend`)."""
        page = self.page
        self.links = []
        box = page.locator("input.md-search__input")
        if not box.is_visible():
            page.keyboard.press("/")
            if not box.is_visible():
                page.locator('label[for="__search"]').first.click()
        meta = page.locator(".md-search-result__meta").element_handle()
        placeholder = page.evaluate("JSON.parse(document.querySelector('#__config').textContent)"
                                    ".translations['search.result.placeholder']")
        box.fill("")
        box.press("End")
        try:  # the worker is ready and the box empty
            page.wait_for_function("([el, text]) => el.textContent.trim() === text", arg=[meta, placeholder],
                                   timeout=10000)
        except Exception:
            pass
        if how != "keys":
            box.focus()
            page.evaluate(SWALLOW_KEYS, True)
            try:
                if how == "menu":
                    page.evaluate("text => navigator.clipboard.writeText(text)", query)
                    box.press("ControlOrMeta+V")  # the page sees the paste, not the keys
                elif how == "insert":
                    self.cdp().send("Input.insertText", {"text": query})
                elif how == "ime":
                    self.cdp().send("Input.imeSetComposition", {"text": query, "selectionStart": len(query),
                                                                "selectionEnd": len(query)})
                    self.cdp().send("Input.insertText", {"text": query})
                else:
                    raise ValueError(how)
                if how != "menu":
                    assert box.input_value() == query, f"{how}: the box holds {box.input_value()!r}"
            finally:
                page.evaluate(SWALLOW_KEYS, False)
        elif paste:
            page.evaluate("text => navigator.clipboard.writeText(text)", query)
            box.press("ControlOrMeta+V")
        else:
            box.fill(query)
        if how == "keys":
            box.press("End")
        try:
            page.wait_for_function("([el, text]) => el.textContent.trim() !== text", arg=[meta, placeholder],
                                   timeout=10000)
        except Exception:
            return ["(no answer within 10 s)"]
        self.links = page.locator(".md-search-result__list > li").evaluate_all(
            "items => items.map(li => (li.querySelector('a') || {}).href).filter(Boolean)")
        return [urlsplit(link).path for link in self.links]

    def cdp(self):
        """A DevTools session on the page: text that arrives without key events."""
        if getattr(self, "_cdp", None) is None:
            self._cdp = self.context.new_cdp_session(self.page)
        return self._cdp


# Key events stop before the page sees them (a page's own synthetic events pass), while `on`.
SWALLOW_KEYS = """on => {
    window.tfdistSwallowKeys = on;
    if (window.tfdistSwallowing) return;
    window.tfdistSwallowing = true;
    for (const type of ['keydown', 'keypress', 'keyup'])
        window.addEventListener(type, event => {
            if (window.tfdistSwallowKeys && event.isTrusted) event.stopImmediatePropagation();
        }, true);
}"""


@pytest.fixture(scope="session")
def tabs(browser, served_site):
    """{viewport: Tab}: one context and one page per viewport, clipboard permitted."""
    out = {}
    for name, options in VIEWPORTS.items():
        context = browser.new_context(**options)
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served_site)
        out[name] = Tab(context, served_site)
    yield out
    for tab in out.values():
        tab.context.close()


@pytest.fixture
def desktop(tabs):
    """The 1280x800 tab, its records emptied."""
    return tabs["desktop"].reset()


@pytest.fixture(scope="session")
def index(site):
    """The site's own error index (/errors.json): the data the matcher and the search must agree on."""
    return json.loads((site / "errors.json").read_text())


# ---------------------------------------------------------------- every page, once per viewport

PAGE_FACTS = """(entryId) => {
    const article = document.querySelector('article') || document.body;
    const prose = article.cloneNode(true);
    prose.querySelectorAll('pre, code, table, script, style, .highlight').forEach(e => e.remove());
    const text = prose.textContent;
    return {
        lang: document.documentElement.lang,
        h1: [...article.querySelectorAll('h1')].map(h => h.textContent.replace('¶', '').trim()),
        showsId: entryId ? article.innerText.includes(entryId) : null,
        cjk: (text.match(/[\\u3400-\\u4dbf\\u4e00-\\u9fff]/g) || []).length,
        latin: (text.match(/[A-Za-z]/g) || []).length,
        entryLinks: [...article.querySelectorAll('a[href]')].map(a => a.href),
        switcher: Object.fromEntries([...document.querySelectorAll('.md-header .md-select a[hreflang]')]
                                     .map(a => [a.hreflang, a.href])),
    };
}"""

MEASURE_TABLES = """() => {
    document.querySelectorAll('article details').forEach(d => d.open = true);
    const style = document.createElement('style');  // every tab's content shown, so every table is measured
    style.textContent = '.tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
    document.head.appendChild(style);
    const article = document.querySelector('article.md-content__inner, .md-content__inner, .md-typeset');
    const cs = getComputedStyle(article);
    const column = article.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const headings = [...article.querySelectorAll('h1, h2, h3, h4')];
    const tables = [...article.querySelectorAll('table')].map((table, i) => {
        let wrap = table.parentElement;
        while (wrap && wrap !== article && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(wrap).overflowX))
            wrap = wrap.parentElement;
        const boxed = wrap && wrap !== article;
        const heading = headings.filter(h => h.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
        const row = table.querySelector('tr');
        return {n: i + 1, width: table.getBoundingClientRect().width,
                heading: heading ? heading.textContent.replace('¶', '').trim() : '',
                head: row ? [...row.cells].map(c => c.textContent.trim()).join(' | ') : '',
                wrap: boxed ? wrap.className : null,
                scroll: boxed ? wrap.scrollWidth : 0, client: boxed ? wrap.clientWidth : 0};
    });
    // recorded messages and outputs (data-tfd-block="record"): wrapped inside their box, never scrolled
    const recorded = [...article.querySelectorAll('[data-tfd-block="record"] pre > code')];
    const records = recorded
        .filter(code => code.scrollWidth > code.clientWidth + 1)
        .map(code => ({text: code.textContent.slice(0, 80), hidden: code.scrollWidth - code.clientWidth}));
    // every code block, source code included: none scrolls sideways on a phone (a long line wraps)
    const blocks = [...article.querySelectorAll('pre > code')];
    const codes = blocks
        .filter(code => code.scrollWidth > code.clientWidth + 1)
        .map(code => ({text: code.textContent.slice(0, 80), hidden: code.scrollWidth - code.clientWidth,
                       kind: code.closest('[data-tfd-block]')?.dataset.tfdBlock || ''}));
    style.remove();
    return {column, tables, records, recordCount: recorded.length, codes, codeCount: blocks.length};
}"""


def _visit(tab: Tab, path: str, entry_id: str | None, screenshot: str | None, settle: bool) -> dict:
    tab.reset()
    status = tab.open(path)
    record = {"status": status}
    if status == 200:
        if settle:  # let every request the page makes after `load` (fetches, workers) happen
            tab.page.wait_for_load_state("networkidle")
        record.update(tab.page.evaluate(PAGE_FACTS, entry_id))
        if screenshot:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            target = SCREENSHOTS / screenshot
            tab.page.screenshot(path=str(target))
            record["screenshot"] = target
        if entry_id:
            record["tables"] = tab.page.evaluate(MEASURE_TABLES)
    record["requests"], record["errors"] = list(tab.requests), list(tab.errors)
    return record


@pytest.fixture(scope="session")
def visits(tabs):
    """{(viewport, path): facts} for home and every entry in both languages at both widths, plus
    ("desktop", "<lang> search") for a search on each home page. Home and /e/TFD001/ are also
    screenshotted; on the desktop they (and the search) wait for the network to go quiet, so that
    every request they make after `load` is seen (other pages record what they ask for until the
    next page replaces them)."""
    out = {}
    for viewport, tab in tabs.items():
        size = "{width}x{height}".format(**VIEWPORTS[viewport]["viewport"])
        for lang in LANGS:
            for entry_id in [None] + ENTRIES + REFERENCE:
                path = entry_path(entry_id, lang) if entry_id else home_path(lang)
                shot = f"{entry_id or 'home'}-{lang}-{size}.png" if entry_id in (None, "TFD001") else None
                out[viewport, path] = _visit(tab, path, entry_id, shot,
                                             settle=viewport == "desktop" and entry_id in (None, "TFD001"))
            if viewport == "desktop":  # a reader's search, for the request and console checks
                tab.reset()
                tab.open(home_path(lang))
                found = [tab.search("TFD001", paste=False),
                         tab.search('RuntimeError: Need to be inside "with strategy.scope()" for <MirroredStrategy>')]
                tab.page.wait_for_load_state("networkidle")
                out[viewport, f"{lang} search"] = {"found": found, "requests": list(tab.requests),
                                                   "errors": list(tab.errors)}
    tabs["desktop"].reset()
    return out


def _loaded(visits, viewport, path) -> dict:
    record = visits[viewport, path]
    assert record["status"] == 200, f"{path}: HTTP {record['status']}"
    return record


# ---------------------------------------------------------------- pages load, each in its language

@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("entry_id", ENTRIES)
def test_entry_page_loads_in_its_language(visits, entry_id, lang):
    path = entry_path(entry_id, lang)
    page = _loaded(visits, "desktop", path)
    assert page["lang"].lower().startswith(lang), f"{path}: <html lang={page['lang']!r}>, expected {lang}"
    assert page["showsId"], f"{path}: the page does not show {entry_id}"
    assert len(page["h1"]) == 1, f"{path}: {len(page['h1'])} <h1> headings"
    if lang == "zh":
        # Chinese prose has far more Chinese characters than an English page with Chinese widgets
        # (the English fallback under /zh/ shows about one per 15-20 Latin letters).
        assert page["cjk"] >= 100 and page["cjk"] * 3 >= page["latin"], (
            f"{path} is not written in Chinese: its prose has {page['cjk']} Chinese characters and "
            f"{page['latin']} Latin letters (wanted at least 100, and one per three Latin letters or more)")
        assert CJK.search(page["h1"][0]), f"{path}: the title {page['h1'][0]!r} is not in Chinese"


@pytest.mark.parametrize("lang", LANGS)
def test_home_loads_in_its_language(visits, lang):
    path = home_path(lang)
    page = _loaded(visits, "desktop", path)
    assert page["lang"].lower().startswith(lang), f"{path}: <html lang={page['lang']!r}>, expected {lang}"
    linked = {urlsplit(link).path for link in page["entryLinks"]}
    missing = [e for e in ENTRIES if entry_path(e, lang) not in linked]
    assert not missing, f"{path} links to no {lang} page of {', '.join(missing)}"
    if lang == "zh":
        assert page["h1"] and CJK.search(page["h1"][0]), f"{path}: the title {page['h1']!r} is not in Chinese"


# ---------------------------------------------------------------- language switch

def _switch(tab: Tab, lang: str):
    tab.page.locator(".md-header .md-select").first.hover()
    with tab.page.expect_navigation():
        tab.page.locator(f'.md-header .md-select a[hreflang^="{lang}"]').first.click()


def test_language_switcher_keeps_the_entry(visits, desktop):
    """A click from /e/TFD001/ to Chinese and back; on every entry page the switcher's links name the
    same entry in each language."""
    problems = []
    for entry_id in ENTRIES:
        for lang in LANGS:
            switcher = _loaded(visits, "desktop", entry_path(entry_id, lang))["switcher"]
            for other in LANGS:
                target = urlsplit(switcher.get(other, "")).path
                if target != entry_path(entry_id, other):
                    problems.append(f"{entry_path(entry_id, lang)}: the switcher's {other} link goes to "
                                    f"{target or 'nothing'}, not {entry_path(entry_id, other)}")
    assert desktop.open(entry_path("TFD001", "en")) == 200
    for lang in ("zh", "en"):
        _switch(desktop, lang)
        if desktop.here().split("#")[0] != entry_path("TFD001", lang) or not desktop.lang().startswith(lang):
            problems.append(f"clicking {lang} in the switcher went to {desktop.here()} (lang {desktop.lang()!r}), "
                            f"not {entry_path('TFD001', lang)}")
            break
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- copy button

COPY_BUTTON = 'button[data-md-type="copy"], button.md-clipboard'


@pytest.mark.parametrize("lang", LANGS)
def test_copy_button_copies_the_code(desktop, lang):
    """Every code block shown on TFD001 gets its copy button once it comes into view (the theme mounts
    code blocks lazily: `content.lazy` in mkdocs.yml), and the button copies what the block shows."""
    page = desktop.page
    assert desktop.open(entry_path("TFD001", lang)) == 200
    visible = [b for b in page.locator("article pre:has(> code)").all() if b.is_visible()]
    assert len(visible) >= 3, f"only {len(visible)} visible code blocks on TFD001"
    missing = []
    for n, block in enumerate(visible):
        block.scroll_into_view_if_needed()
        try:
            block.locator(COPY_BUTTON).first.wait_for(state="attached", timeout=3000)
        except Exception as error:  # playwright's TimeoutError
            if type(error).__name__ != "TimeoutError":
                raise
            missing.append(f"block {n + 1}: {block.inner_text()[:80]!r}")
    assert not missing, f"{len(missing)} of {len(visible)} code blocks got no copy button in view:\n" + "\n".join(missing)
    for n, block in enumerate(visible[:3]):
        page.evaluate("navigator.clipboard.writeText('(nothing copied)')")
        block.hover()
        block.locator(COPY_BUTTON).first.click()
        page.wait_for_function("async () => (await navigator.clipboard.readText()) !== '(nothing copied)'",
                               timeout=3000)
        copied = page.evaluate("navigator.clipboard.readText()")
        shown = block.locator("code").first.inner_text()
        assert copied.rstrip("\n") == shown.rstrip("\n"), (
            f"code block {n + 1}: the clipboard holds {copied[:200]!r}, the block shows {shown[:200]!r}")


# ---------------------------------------------------------------- nothing leaves the machine, no errors

def _of_lang(visits, lang):
    return {key: record for key, record in visits.items()
            if key[1] == f"{lang} search" or (key[1].startswith("/zh/") == (lang == "zh") and key[1].startswith("/"))}


@pytest.mark.parametrize("lang", LANGS)
def test_no_request_leaves_localhost(visits, lang):
    """Home and every entry at both widths, and a search, in one language."""
    records = _of_lang(visits, lang)
    assert any("search" in r for r in records["desktop", f"{lang} search"]["requests"]), "the search was not used"
    outside = {}
    for (viewport, path), record in records.items():
        for url in record["requests"]:
            if urlsplit(url).scheme not in ("data", "blob", "about") and urlsplit(url).hostname != "127.0.0.1":
                outside.setdefault(url, f"{path} ({viewport})")
    assert not outside, f"{len(outside)} request(s) left 127.0.0.1:\n" + "\n".join(
        f"{url} from {where}" for url, where in sorted(outside.items()))


@pytest.mark.parametrize("lang", LANGS)
def test_a_page_fetches_only_its_own_languages_search_index(visits, lang):
    """Home and every entry at both widths, and a search, in one language: the search asks for the
    language's own index (/search/ or /zh/search/) and for nothing else of search; a page only read
    asks for no index at all (tfdist-search.js sends the request when the reader turns to the search:
    home and /e/TFD001/ on the desktop wait for the network to go quiet, so a request after `load`
    would be seen)."""
    own = f"{LANGS[lang]}/search/search_index.json"
    asked = {key: [urlsplit(url).path for url in record["requests"] if "search_index" in urlsplit(url).path]
             for key, record in _of_lang(visits, lang).items()}
    search = ("desktop", f"{lang} search")
    assert asked[search] == [own], f"the search on {home_path(lang)} fetched {asked[search]}, not [{own!r}]"
    read = {f"{path} ({viewport})": urls for (viewport, path), urls in asked.items() if (viewport, path) != search}
    assert len(read) >= 2 * len(ENTRIES), sorted(read)
    fetched = {where: urls for where, urls in read.items() if urls}
    assert not fetched, f"pages only read fetched a search index: {fetched}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_console_errors(visits, lang):
    """Home and every entry at both widths, and a search, in one language: no console error, no
    uncaught exception, no failed response."""
    errors = list(dict.fromkeys(f"{error} [{viewport}]" for (viewport, _), record in _of_lang(visits, lang).items()
                                for error in record["errors"]))
    assert not errors, f"{len(errors)} error(s):\n" + "\n".join(errors)


# ---------------------------------------------------------------- tables fit

@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("entry_id", ENTRIES + REFERENCE)
def test_tables_fit(visits, entry_id, lang, viewport):
    """No table wider than the text column, none scrolling inside its box (a hidden column), on every
    entry and on the error index (whose "reproduced on" column must stay on screen)."""
    path = entry_path(entry_id, lang)
    found = _loaded(visits, viewport, path)["tables"]
    column = found["column"]
    problems = []
    for t in found["tables"]:
        name = f"table {t['n']} under {t['heading'][:60]!r} (first row: {t['head'][:80]!r})"
        if t["width"] > column + 1:
            problems.append(f"{name} is {t['width']:.0f} px wide in a {column:.0f} px column: "
                            f"{t['width'] - column:.0f} px too wide"
                            + (f" ({t['scroll'] - t['client']} px hidden in its scroll box)" if t["wrap"] else ""))
        elif t["scroll"] > t["client"] + 1:
            problems.append(f"{name}: its scroll box ({t['wrap']}) is {t['client']} px wide and scrolls "
                            f"{t['scroll']} px: {t['scroll'] - t['client']} px hidden")
    size = "{width}x{height}".format(**VIEWPORTS[viewport]["viewport"])
    assert not problems, f"{path} at {size}:\n" + "\n".join(problems)


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("lang", LANGS)
def test_recorded_messages_wrap_inside_their_box(visits, lang, viewport):
    """A recorded message or output ("What users see", outcomes) wraps: none scrolls sideways, on any
    entry, at 1280 px or on a phone. Checked positively: the pages do show records."""
    problems, shown = [], 0
    for entry_id in ENTRIES:
        path = entry_path(entry_id, lang)
        found = _loaded(visits, viewport, path)["tables"]
        shown += found["recordCount"]
        problems += [f"{path}: {r['hidden']} px hidden: {r['text']!r}" for r in found["records"]]
    assert shown >= len(ENTRIES), f"only {shown} recorded blocks on {len(ENTRIES)} entries"
    assert not problems, f"{len(problems)} recorded block(s) scroll:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_no_code_block_scrolls_sideways_on_a_phone(visits, lang):
    """At 390 px every code block of every entry, source code as well as recorded messages, fits its
    box: a long line wraps under its own indentation (extra.css, tfdist_kb/site/codelines.py) instead of
    being cut at the screen's edge. Checked positively: the pages do show code."""
    problems, shown = [], 0
    for entry_id in ENTRIES:
        path = entry_path(entry_id, lang)
        found = _loaded(visits, "phone", path)["tables"]
        shown += found["codeCount"]
        problems += [f"{path}: a {c['kind'] or 'code'} block, {c['hidden']} px hidden: {c['text']!r}"
                     for c in found["codes"]]
    assert shown >= 2 * len(ENTRIES), f"only {shown} code blocks on {len(ENTRIES)} entries"
    assert not problems, f"{len(problems)} code block(s) scroll sideways at 390 px:\n" + "\n".join(problems[:20])


# ---------------------------------------------------------------- search

def _expected(query: str, index: dict, fallback: str | None) -> set[str]:
    """The entries `tfdist explain` puts first for `query` (all of them when tied), else {fallback}."""
    found = matcher.explain(query, index)
    if found:
        return {r["id"] for r in found if r["score"] == found[0]["score"]}
    return {fallback} if fallback else set()


def _check_searches(tab: Tab, lang: str, cases: list[tuple[str, set[str], str]], paste: bool = True,
                    how: str = "keys") -> None:
    """cases: (query, expected entry IDs, note), each pasted (or typed, or as `how` says: Tab.search)
    on the language's home page. Fails listing every query whose first result is wrong."""
    assert tab.open(home_path(lang)) == 200
    problems = []
    for query, expected, note, *within in cases:
        within = within[0] if within else 1  # the expected entry among the first `within` pages
        paths = tab.search(query, paste=paste, how=how)
        wanted = sorted(entry_path(e, lang) for e in expected)
        if not set(list(dict.fromkeys(paths))[:within]) & set(wanted):
            where = "first" if within == 1 else f"among the first {within} pages"
            problems.append(f"{query[:100]!r}{note}: expected {' or '.join(wanted)} {where}, "
                            f"got {paths[:3] or 'nothing'}")
    assert not problems, (f"{len(problems)} of {len(cases)} searches on {home_path(lang)} miss:\n"
                          + "\n".join(problems))


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_an_entry_by_its_id(desktop, index, lang):
    cases = []
    for entry_id in ENTRIES:
        for query in (entry_id, entry_id.lower()):
            assert _expected(query, index, None) == {entry_id}
            cases.append((query, {entry_id}, ""))
    _check_searches(desktop, lang, cases, paste=False)


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_every_recorded_error_headline(desktop, index, lang):
    """Each `exception: headline` the evidence recorded: the entry the matcher names first. A headline
    the matcher names no entry for is a generic TensorFlow message (`tf.function-decorated function
    tried to create variables on non-first call.`) that many programs raise: the words decide, and
    the entry that recorded it must be among the first 3 pages."""
    owners: dict[str, list[str]] = {}
    for entry in index["entries"]:
        for run in entry.get("reproduced") or []:
            ids = owners.setdefault(f"{run['exception']}: {run['headline']}", [])
            if entry["id"] not in ids:
                ids.append(entry["id"])
    assert owners, "no recorded error headline in errors.json"
    cases = []
    for query, ids in owners.items():
        expected = _expected(query, index, None)
        within = 1
        if not expected:
            expected, within = set(ids), 3
            note = f" (recorded under {', '.join(ids)}; `tfdist explain` names no entry)"
        elif not set(ids) & expected:
            note = f" (recorded under {', '.join(ids)}; `tfdist explain` names {', '.join(sorted(expected))})"
        else:
            note = ""
        cases.append((query, expected, note, within))
    _check_searches(desktop, lang, cases)


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_the_pastes_from_the_issue(desktop, index, lang):
    _check_searches(desktop, lang, [(q, _expected(q, index, fallback), "") for q, fallback in ISSUE_PASTES])


def test_the_browser_matches_as_tfdist_explain_does(desktop, index):
    """One matcher: the search box's normalising and ranking (tfdist-search.js, fed with the
    signatures and the matcher's scores) give what tfdist.matcher gives, on every recorded message,
    whole and headline, and every real paste."""
    texts = [f"{run['exception']}: {run['headline']}" for e in index["entries"] for run in e.get("reproduced") or []]
    records = evidence.load().values()
    texts += [f"{r['exception']}: {r['message']}" for r in records if r["outcome"] == "raised"]
    texts += [json.loads(line)["error_text"] for line in REAL_ERRORS.read_text().splitlines() if line.strip()]
    texts += ["TFD001", " tfd005 ", "", "nothing to see", "\x1b[31mE   > ValueError: \u201cquoted\u201d\\\n  x"]
    texts = list(dict.fromkeys(texts))
    assert desktop.open(home_path("en")) == 200
    browser = desktop.page.evaluate(
        "texts => texts.map(t => [tfdistNormalise(t), tfdistExplain(t).map(r => [r.id, r.score])])", texts)
    problems = []
    for text, (normalised, found) in zip(texts, browser):
        python = [[r["id"], r["score"]] for r in matcher.explain(text, index)] if text.strip() else []
        if normalised != matcher.normalise(text) or found != python:
            problems.append(f"{text[:80]!r}: browser {found} {normalised[:60]!r}, "
                            f"tfdist explain {python} {matcher.normalise(text)[:60]!r}")
    assert not problems, f"{len(problems)} of {len(texts)} texts differ:\n" + "\n".join(problems)


def test_search_finds_chinese_terms(desktop):
    """A Chinese word (segmented by jieba at build time) finds the entry it names among the first 3
    pages: with 16 entries, several are about optimizers, replicas or moving averages."""
    _check_searches(desktop, "zh", [(q, {e}, "", 3) for q, e in CHINESE_TERMS], paste=False)


@pytest.mark.parametrize("lang", LANGS)
def test_search_puts_each_entry_first_for_its_terms(desktop, index, lang):
    """The words a reader searches an entry by (its `terms` in this language): that entry first, as
    `tfdist explain` answers them (tests/test_terms.py)."""
    cases = []
    for entry in registry.load().values():
        if entry.status != "published":
            continue
        page = entry.page if lang == "en" else entry.page.with_name(f"{entry.id}.{lang}.md")
        for term in registry.front_matter(page)[0]["terms"]:
            assert _expected(term, index, None) == {entry.id}, term
            cases.append((term, {entry.id}, ""))
    assert len(cases) >= len(ENTRIES)
    _check_searches(desktop, lang, cases, paste=False)


def test_chinese_pages_find_dotted_names(desktop):
    """Lunr in a Chinese page's worker fails on some dotted words its own index holds ("Invalid query",
    no result at all): each of these API names still finds pages there, as it does in English."""
    for lang in LANGS:
        assert desktop.open(home_path(lang)) == 200
        empty = [q for q in ("tf.data", "tf.Variable", "tf.Tensor", "tf.distribute") if not desktop.search(q, paste=False)]
        assert not empty, f"{lang}: nothing found for {empty}"


def test_search_answers_questions_in_readers_words(desktop):
    """A question as a reader types it finds its entry among the first 3 results (English)."""
    assert {e for _, e in QUESTIONS} == set(ENTRIES), "every entry has its questions"
    _check_searches(desktop, "en", [(q, {e}, "", 3) for q, e in QUESTIONS], paste=False)


def test_search_finds_real_error_pastes(desktop, index):
    """Every paste of tests/corpus/real_errors.jsonl that `tfdist explain` answers: that entry first."""
    path = REAL_ERRORS
    cases = []
    for line in path.read_text().splitlines():
        if line.strip():
            paste = json.loads(line)
            expected = _expected(paste["error_text"], index, None)
            if expected:
                cases.append((paste["error_text"], expected, f" ({paste.get('source', '?')})"))
    assert cases, f"{path}: the matcher answers none of its pastes"
    _check_searches(desktop, "en", cases)


# ---------------------------------------------------------------- however text arrives, what its result marks

# A traceback line wrapped with a backslash, as terminals and issue trackers print it: matched whole
# (the break known, `Strat\` + `egy` joined) it names TFD007 then TFD001; as the box shows it (the
# break made a space) the matcher names nothing and only the words decide.
WRAPPED = ("ValueError: Mixing different tf.distribute.Strat\\\n    egy objects: <tensorflow.python.distribute."
           "mirrored_strategy.MirroredStrategy object at 0x7f3c> is not <tensorflow.python.distribute."
           "one_device_strategy.OneDeviceStrategy object at 0x7f3d>")
# Real pastes full of "a", "an", "in", "to" (the issue's `?h=valueerror+specify+an+a+...`).
WORDY_PASTES = ["tensorflow/tensorflow#23986", "keras-team/keras#20582"]
ARRIVALS = ["menu", "insert", "ime"]  # Tab.search: no key event reaches the page


def _real_pastes(sources: list[str] | None = None) -> list[dict]:
    pastes = [json.loads(line) for line in REAL_ERRORS.read_text().splitlines() if line.strip()]
    pastes = [p for p in pastes if p["label"] in ENTRIES]
    return [p for p in pastes if p["source"] in sources] if sources else pastes


def arrival_cases(index: dict, lang: str, how: str) -> list[tuple]:
    """(query, the entries expected first in this order, the first `within` pages, note) for `how`:
    a paste keeps its line breaks (WRAPPED and multi-line real pastes); an insertion or an input
    method's commit is one line (an ID, a recorded headline, a Chinese term)."""
    if how == "menu":
        assert not matcher.explain(WRAPPED.replace("\n", " "), index), "WRAPPED no longer needs its line break"
        texts = [WRAPPED] + [p["error_text"] for p in _real_pastes(WORDY_PASTES)]
        return [(text, [r["id"] for r in matcher.explain(text, index)][:2], 1, "") for text in texts]
    headline = next(f"{r['exception']}: {r['headline']}" for e in index["entries"] if e["id"] == "TFD010"
                    for r in e.get("reproduced") or [])
    cases = [("TFD007", ["TFD007"], 1, ""), (headline, ["TFD010"], 1, "")]
    if lang == "zh":
        cases += [(q, [e], 3, " (a Chinese term)") for q, e in CHINESE_TERMS[:2]]
    return cases


def check_arrivals(tab: Tab, home: str, lang: str, cases: list[tuple], how: str) -> list[str]:
    """Each case searched on `home` as `how` says: the problems (expected pages not first, in order)."""
    problems, root = [], urlsplit(tab.base).path
    tab.page.goto(tab.base + home)
    for query, expected, within, note in cases:
        paths = [page_of(p, root) for p in dict.fromkeys(tab.search(query, how=how))]
        wanted = [f"{LANGS[lang]}/e/{e}" for e in expected]
        ok = paths[:len(wanted)] == wanted if within == 1 else wanted[0] in paths[:within]
        if not ok:
            problems.append(f"{how} {query[:80]!r}{note}: expected {wanted} "
                            f"{'first' if within == 1 else f'in the first {within}'}, got {paths[:4] or 'nothing'}")
        asked = [h_of(link) for link in tab.links if h_of(link)]
        if how == "menu" and asked:  # a pasted message is no list of words to look for
            problems.append(f"{how} {query[:80]!r}: result links highlight {asked[:3]}")
    return problems


def page_of(path: str, root: str = "") -> str:
    """A result's page whatever the build: /e/TFD001/ and <root>/e/TFD001.html are /e/TFD001."""
    path = urlsplit(path).path.removeprefix(root)
    return re.sub(r"(/index\.html|\.html|/)$", "", path) or "/"


@pytest.mark.parametrize("how", ARRIVALS)
@pytest.mark.parametrize("lang", LANGS)
def test_search_runs_however_text_arrives(desktop, index, lang, how):
    """A paste from the context menu or a long press, an input method's commit, a dictation: no
    key event, and Material searches on key events only. The box searches anyway, and a paste is
    matched whole: with its line breaks, WRAPPED names TFD007 then TFD001."""
    problems = check_arrivals(desktop, home_path(lang), lang, arrival_cases(index, lang, how), how)
    assert not problems, "\n".join(problems)
    assert not desktop.errors, desktop.errors


def h_of(link: str) -> list[str]:
    """The words a result link asks its page to highlight (Material's `?h=`)."""
    return " ".join(parse_qs(urlsplit(link).query).get("h", [])).split()


def marks(tab: Tab, some: bool) -> list[str]:
    """The words Material highlighted on the page (it does once the search index has loaded);
    `some`: wait up to 10 s for one."""
    tab.page.wait_for_load_state("networkidle")
    if some:
        try:
            tab.page.wait_for_selector("mark[data-md-highlight]", state="attached", timeout=10000)
        except Exception:
            pass
    return tab.page.evaluate("[...document.querySelectorAll('mark[data-md-highlight]')].map(m => m.textContent)")


USELESS = re.compile(r"^(?:[a-z0-9]{1,2}|[\u3400-\u9fff]|the|and|for|with|not|this|that|are|was)$", re.I)


def check_pasted_marks(tab: Tab, home: str, lang: str, index: dict) -> list[str]:
    """From `home` (a path under the tab's base), a real paste full of "a", "an", "in", "to" and an
    entry's ID: what is wrong with their results and with the page each first result opens."""
    problems = []
    root = urlsplit(tab.base).path
    for paste in _real_pastes(WORDY_PASTES) + [{"error_text": "TFD010", "source": "an ID", "label": "TFD010"}]:
        tab.page.goto(tab.base + home)
        tab.search(paste["error_text"])
        expected = _expected(paste["error_text"], index, paste["label"])
        what = f"{paste['source']} on {tab.here()}"
        first = page_of(tab.links[0], root) if tab.links else None
        if first not in {page_of(entry_path(e, lang)) for e in expected}:
            problems.append(f"{what}: {first} first, expected {sorted(expected)}")
            continue
        asked = {page_of(link, root): h_of(link) for link in tab.links if h_of(link)}
        if asked:
            problems.append(f"{what}: result links highlight {asked}")
        missing = tab.page.locator(".md-search-result__terms").all_inner_texts()
        if missing:
            problems.append(f"{what}: results list {missing[:3]}")
        tab.page.locator(".md-search-result__list > li a").first.click()
        marked = marks(tab, False)
        if marked:
            problems.append(f"{what}: {tab.here()} shows {len(marked)} highlighted words: {marked[:10]}")
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_a_pasted_error_marks_nothing_on_its_page(desktop, index, lang):
    """A real paste full of "a", "an", "in", "to": its entry comes first, no result link asks for
    a highlight, no result lists "Missing:" words, and the entry's page opened from the result has
    no highlighted word. An entry found by its ID is opened unmarked too. (The offline build:
    test_offline.py.)"""
    problems = check_pasted_marks(desktop, home_path(lang), lang, index)
    assert not problems, "\n".join(problems)


# a few typed words: what the results highlight, and what they must not
TYPED = {"en": [("slot variable in a scope", "slot"), ("the optimizer to a strategy", "optimizer")],
         "zh": [("优化器的槽变量", "优化器"), ("变量", None)]}


@pytest.mark.parametrize("lang", LANGS)
def test_typed_words_highlight_only_words_that_matter(desktop, lang):
    """Words typed in the box: the result links highlight what the reader looked for, never a stop
    word, a word under 3 letters or one Chinese character (Material's highlighter marks a term
    wherever it occurs, so `a` or 变 would mark half the page)."""
    problems = []
    assert desktop.open(home_path(lang)) == 200
    for query, kept in TYPED[lang]:
        desktop.search(query, paste=False)
        asked = {word for link in desktop.links for word in h_of(link)}
        bad = sorted(w for w in asked if USELESS.match(w))
        if bad:
            problems.append(f"{query!r}: result links highlight {bad}")
        if kept and kept not in asked:
            problems.append(f"{query!r}: no result link highlights {kept!r} ({sorted(asked)})")
        if desktop.links:
            desktop.page.goto(desktop.links[0])
            marked = marks(desktop, bool(kept))
            bad = sorted({m for m in marked if USELESS.match(m.strip())})
            if bad:
                problems.append(f"{query!r}: {desktop.here()} highlights {bad}")
            if kept and not marked:
                problems.append(f"{query!r}: {desktop.here()} highlights nothing")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- screenshots (test output)

def test_screenshots(visits, capsys):
    shots = [record["screenshot"] for record in visits.values() if "screenshot" in record]
    assert len(shots) == 2 * len(LANGS) * len(VIEWPORTS), f"{len(shots)} screenshots taken"
    for shot in shots:
        assert shot.stat().st_size > 1000, f"{shot}: empty"
    with capsys.disabled():
        print("\nscreenshots:\n" + "\n".join(f"  {shot.relative_to(ROOT)}" for shot in sorted(shots)))
