"""The site's two languages: which one a page is in, and the words the machinery writes into
pages (macros, hooks) in each. Pages themselves are written per language (`X.md`, `X.zh.md`)."""
from __future__ import annotations

LANGUAGES = ("en", "zh")
DEFAULT = "en"

_current = DEFAULT


def page_language(page) -> str:
    """The language of a page being built: the one mkdocs-static-i18n is building it for."""
    file = getattr(page, "file", None)
    lang = getattr(file, "locale_alternate_of", None) or getattr(file, "locale", None)
    if lang is None and file is not None and file.src_uri.endswith(".zh.md"):
        lang = "zh"
    return lang if lang in LANGUAGES else DEFAULT


def set_language(lang: str) -> None:
    global _current
    _current = lang if lang in LANGUAGES else DEFAULT


def language() -> str:
    return _current


# key -> (English, Chinese). `{name}` fields are filled by the caller with str.format.
PHRASES = {
    "and": (" and ", " 和 "),
    "list_sep": (", ", "、"),
    "with_keras": ("TF {tf} with {keras}", "TF {tf}（{keras}）"),
    "legend": (
        "**pass**: ran to the end and its own assertions held · **an exception name**: raised it · "
        "**wrong result**: ran, and printed the wrong result its page documents · **hangs**: did not "
        "finish and was stopped · **n/a**: does not apply there.",
        "**通过**：运行到结束，且自身的断言全部成立 · **异常名**：抛出了该异常 · "
        "**错误结果**：运行完成，但打印出页面所记录的错误结果 · **挂起**：没有结束，被终止 · "
        "**不适用**：该环境不适用。"),
    "pass": ("pass", "通过"),
    "wrong result": ("wrong result", "错误结果"),
    "wrong_tip": ("runs, but prints the wrong result its page documents", "能运行，但打印出页面所记录的错误结果"),
    "hangs": ("hangs", "挂起"),
    "hangs_tip": ("stopped after {seconds:.0f} s without finishing", "{seconds:.0f} 秒后仍未结束，被终止"),
    "n/a": ("n/a", "不适用"),
    "no evidence": ("no evidence", "无记录"),
    "snippet": ("snippet", "示例"),
    "preview": ("⚠ preview only, no current evidence: {error}", "⚠ 仅预览，没有当前的运行记录：{error}"),
    "preview_title": ("Preview only: no current evidence", "仅预览：没有当前的运行记录"),
    "not_run_on": ("Not run on {env}", "未在 {env} 上运行"),
    "timed_out": ("Recorded run: did not finish within {seconds:.0f} s, stopped — {label}",
                  "记录的运行：{seconds:.0f} 秒内没有结束，被终止 — {label}"),
    "ran_wrong": ("ran, with the wrong result shown", "运行完成，结果错误（见下）"),
    "passed": ("passed", "通过"),
    "raised": ("raised {exception}", "抛出 {exception}"),
    "on_devices": (" on {devices}", "，设备 {devices}"),
    "recorded_run": ("Recorded run: {how} — {label}, {replicas} replicas{on}",
                     "记录的运行：{how} — {label}，{replicas} 个副本{on}"),
    "whole_message": ("Whole message", "完整信息"),
    "printed_nothing": ("(printed nothing)", "（没有输出）"),
    "verb_passes": ("passes", "通过"),
    "verb_wrong-result": ("prints the wrong result", "打印错误结果"),
    "verb_hangs": ("hangs", "挂起"),
    "verb_raises_it": ("raises it", "抛出该错误"),
    "verb_raises": ("raises {exception}", "抛出 {exception}"),
    "bisection": ("TF {before} is the last release that {was} and TF {after} the first that {now}; "
                  "no TensorFlow release lies between them",
                  "TF {before} 是最后一个{was}的版本，TF {after} 是第一个{now}的版本；两者之间没有其他 TensorFlow 版本"),
    "not_verified": ("Not verified", "未验证"),
    "no_snippets": ("This entry has no executed snippets yet.", "本条目还没有已执行的示例。"),
    "verified_on": ("Verified on", "验证环境"),
    "verified_head": ("{snippets} snippet{s}, {runs} runs, each on {replicas} replicas ({devices}), last run {date}:",
                      "{snippets} 个示例，{runs} 次运行，每次 {replicas} 个副本（{devices}），最近一次运行于 {date}："),
    "verified_line": ("- `{env}`: {label} ({mine} of {total} snippets apply)",
                      "- `{env}`：{label}（{total} 个示例中 {mine} 个适用）"),
    "fix": ("fix", "修复"),
    "message": ("message", "信息"),
    "reproduced_on": ("reproduced on", "复现于"),
    "entry_badge": ("Entry <strong>{id}</strong> · permanent address <code>/e/{id}/</code> · in a terminal: "
                    "<code>tfdist explain {id}</code>",
                    "条目 <strong>{id}</strong> · 永久地址 <code>/e/{id}/</code> · 在终端中：<code>tfdist explain {id}</code>"),
    "run_yourself": (
        "\n\n## Run it yourself\n\nEvery example above is a file under `snippets/{id}/`. The same files, as one "
        "notebook: {notebook} (it starts with the cell that provides 4 replicas on a machine without 4 GPUs). "
        "To run one file the way the tests do, in any environment: `tfdist run snippets/{id}/<file>.py --env tf2.4`.\n",
        "\n\n## 自己运行\n\n上面的每个示例都是 `snippets/{id}/` 下的一个文件。同样的文件也合成了一个 notebook："
        "{notebook}（第一个单元格会在没有 4 块 GPU 的机器上提供 4 个副本）。要像测试那样在任意环境中运行其中一个文件："
        "`tfdist run snippets/{id}/<文件>.py --env tf2.4`。\n"),
}


def t(key: str, **fields) -> str:
    """The phrase `key` in the current language, with `fields` filled in."""
    en, zh = PHRASES[key]
    text = zh if _current == "zh" else en
    return text.format(**fields) if fields else text
