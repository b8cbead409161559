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


# The tag vocabulary (registry.TAGS) as a Chinese page shows it; the front matter keeps the slugs.
TAG_NAMES_ZH = {
    "slot-variables": "槽变量",
    "build-timing": "创建时机",
    "version-differences": "版本差异",
    "load-model": "加载模型",
    "ema": "滑动平均",
    "strategy-scope": "策略作用域",
    "replica-context": "副本上下文",
    "cross-device-ops": "跨设备通信",
    "variable-aggregation": "变量聚合",
}


def tag_name(slug: str, lang: str) -> str:
    """A tag of the vocabulary as a page in `lang` shows it (KeyError for a slug it does not know)."""
    return TAG_NAMES_ZH[slug] if lang == "zh" else slug


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
    # outcomes(): one row per snippet and outcome, listing the environments that had it
    "outcome_col": ("outcome", "结果"),
    "environments_col": ("environments", "环境"),
    "table_hint": ("An outcome with a triangle opens (tap, click or Enter) to show the message behind it.",
                   "带三角标记的结果可以展开（点击或按回车键），显示其背后的信息。"),
    "reasons_by_env": ("{envs}: {reason}", "{envs}：{reason}"),
    "preview": ("⚠ preview only, no current evidence: {error}", "⚠ 仅预览，没有当前的运行记录：{error}"),
    "preview_title": ("Preview only: no current evidence", "仅预览：没有当前的运行记录"),
    "not_run_on": ("Not run on {env}", "未在 {env} 上运行"),
    "fix_lead": ("Fix:", "修复："),
    # the runner's not-applicable reason in a bisection environment (tfdist_kb/site/reasons.py)
    "bisection_reason": ("{env} is a bisection environment; it runs only {only}",
                         "{env} 只用于二分定位版本，只运行 {only}"),
    # an outcome table's reason for every bisection environment that does not run the snippet (one
    # line for all of them, not each one's list of snippets: the tables stay short on a phone and on paper)
    "bisection_na": ("a bisection environment: it runs only the snippets that locate a change between two "
                     "adjacent releases",
                     "用于二分定位版本的环境：只运行用来定位两个相邻版本之间变化的示例"),
    "timed_out": ("Recorded run: did not finish within {seconds:.0f} s, stopped — {label}",
                  "记录的运行：{seconds:.0f} 秒内没有结束，被终止 — {label}"),
    "ran_wrong": ("ran, with the wrong result shown", "运行完成，结果错误（见下）"),
    "passed": ("passed", "通过"),
    "raised": ("raised {exception}", "抛出 {exception}"),
    "on_devices": (" on {devices}", "，设备 {devices}"),
    "recorded_run": ("Recorded run: {how} — {label}, {replicas} replicas{on}",
                     "记录的运行：{how} — {label}，{replicas} 个副本{on}"),
    "whole_message": ("Whole message", "完整信息"),
    "users_see_on": ("Raised on {releases}:", "{releases} 上抛出："),
    "users_see_printed": ("Printed on {releases}, without any error:", "{releases} 上没有任何报错，输出为："),
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
    "verified_line": ("- {env}: {label} ({mine} of {total} snippets apply)",
                      "- {env}：{label}（{total} 个示例中 {mine} 个适用）"),
    # the coverage page (macros.coverage_table, tfdist_kb/site/coverage.py)
    "cov_summary": (
        "{pastes} real error pastes from public issue threads, in {families} families. {tpu} of them need TPU "
        "hardware, which no environment here has: they are counted apart. Of the other {counted}, **{reached} "
        "reach the entry that answers them first ({share}%)**, in `tfdist explain` and in this site's search "
        "alike. False links (a paste that no entry answers, linked to an entry anyway): {false}.",
        "{pastes} 条来自公开 issue 讨论的真实错误粘贴，分为 {families} 个类别。其中 {tpu} 条需要 TPU 硬件，"
        "这里没有任何环境具备，因此单独计数。其余 {counted} 条中，**{reached} 条第一个就找到解答它的条目"
        "（{share}%）**，`tfdist explain` 和本站搜索结果相同。错误链接（没有条目解答的粘贴却被链接到某个条目）：{false}。"),
    "cov_family": ("family", "类别"),
    "cov_pastes": ("pastes", "粘贴数"),
    "cov_tpu": ("need TPU", "需要 TPU"),
    "cov_entries": ("answered by", "解答条目"),
    "cov_reach": ("reach their entry first", "第一个就找到条目"),
    "cov_reach_cell": ("{reached} of {counted} ({share}%)", "{counted} 条中 {reached} 条（{share}%）"),
    "cov_no_entry": ("no entry yet", "尚无条目"),
    "cov_uncovered_count": ("pastes no entry answers", "没有条目解答的粘贴"),
    "cov_why": ("why", "原因"),
    "cov_no_reason": ("see each paste's `why` in the corpus", "见语料中每条粘贴的 `why`"),
    "cov_all_tpu": ("all need TPU", "全部需要 TPU"),
    "fix_label": ("fix: {fix}", "修复：{fix}"),
    "message": ("message", "信息"),
    "reproduced_on": ("reproduced on", "复现于"),
    "entry_badge": ("Entry <strong>{id}</strong> · permanent address <code>/e/{id}/</code> · in a terminal: "
                    "<code>tfdist explain {id}</code>",
                    "条目 <strong>{id}</strong> · 永久地址 <code>/e/{id}/</code> · 在终端中：<code>tfdist explain {id}</code>"),
    "run_yourself": (
        "\n\n## Run it yourself\n\nEvery example above is a file under `snippets/{id}/`. The same files, as one "
        "notebook: {notebook} with the recorded outputs of {env} that this page shows, or {download} to run it "
        "(it starts with the cell that provides 4 replicas on a machine without 4 GPUs; running it replaces the "
        "recorded outputs with yours). To run one file the way the tests do, in any environment: "
        "<code>tfdist run snippets/{id}/&lt;file&gt;.py --env {env_span}</code>.\n",
        "\n\n## 自己运行\n\n上面的每个示例都是 `snippets/{id}/` 下的一个文件。同样的文件也合成了一个 notebook："
        "{notebook}（带有本页所示的 {env} 记录输出），或{download}自己运行（第一个单元格会在没有 4 块 GPU 的机器上"
        "提供 4 个副本；运行后，记录的输出会被你自己的输出替换）。要像测试那样在任意环境中运行其中一个文件："
        "<code>tfdist run snippets/{id}/&lt;文件&gt;.py --env {env_span}</code>。\n"),
    "read_notebook": ("read it", "在线阅读"),
    # the tfdist package offered by the site (tfdist_kb/site/wheel.py, macros.tfdist_package)
    "package_download": (
        "[download the `tfdist` package]({wheel}){{ download }} from this site (a pure-Python wheel, standard library "
        "only) and `pip install` it into the environment where the error happened; or in one "
        "command: `pip install --no-index --find-links {address} tfdist`. No network is needed afterwards",
        "[从本站下载 `tfdist` 包]({wheel}){{ download }}（一个纯 Python 的 wheel 文件，只用标准库），"
        "在出错的那个环境里用 `pip install` 安装；也可以一条命令装好："
        "`pip install --no-index --find-links {address} tfdist`。之后不再需要网络"),
    "package_source": ("; its source is the `tfdist/` folder of [the repository]({repo})",
                       "；源代码在[仓库]({repo})的 `tfdist/` 目录"),
    "download_notebook": ("download {file}", "下载 {file}"),
    # the generated notebooks (tfdist_kb/site/notebooks.py)
    "nb_intro": ("# {id}: {title}\n\nThe page that explains each cell: [{id}]({url}). Generated from "
                 "`snippets/{id}/`, the same files that page shows.",
                 "# {id}：{title}\n\n逐个解释这些单元格的页面：[{id}]({url})。由 `snippets/{id}/` 生成，"
                 "与该页面展示的是同一批文件。"),
    "nb_outputs": ("The outputs below are not from running this notebook: they are the recorded runs that the "
                   "page shows as evidence, in {env} ({label}), {replicas} replicas on {devices}, last run {date}. "
                   "Running the notebook replaces them with your own.",
                   "下面的输出不是运行本 notebook 得到的，而是页面作为证据展示的记录运行：{env}（{label}），"
                   "{replicas} 个副本，设备 {devices}，最近一次运行于 {date}。运行本 notebook 后会被你自己的输出替换。"),
    "nb_no_outputs": ("No run of this entry is recorded in {env}: the cells have no outputs until you run them.",
                      "本条目在 {env} 中没有记录的运行：这些单元格在你运行之前没有输出。"),
    "nb_setup": ("Run this first on a machine with fewer than 4 GPUs: it makes 4 devices visible so that "
                 "`tf.distribute.MirroredStrategy()` has 4 replicas. Restart the kernel before running it again.",
                 "在少于 4 块 GPU 的机器上请先运行这个单元格：它让 TensorFlow 看到 4 个设备，使 "
                 "`tf.distribute.MirroredStrategy()` 有 4 个副本。再次运行前请先重启内核。"),
    "reduced_on": ("{how} on {releases}", "{releases} 上是 {how}"),
    "groups_sep": ("; ", "；"),
    "nb_restart": ("**Restart the kernel before this cell, then run the setup cell (the third) again**: {reason}.",
                   "**运行此单元格前请重启内核，然后再运行一次设置单元格（第三个）**：{reason}。"),
    "nb_recorded": ("Recorded in {env}: {how}.", "在 {env} 中的记录：{how}。"),
    "nb_cluster": ("This program runs as a local cluster of {n} processes ({tasks}), as {n} machines would run it: "
                   "the first cell saves it as `{file}`, the second starts one process per task on this machine, "
                   "each with its `TF_CONFIG` (localhost ports), and shows what each printed "
                   "(`local_cluster`, defined in the setup cell). On a real cluster, run `python {file}` on every "
                   "machine with that machine's `TF_CONFIG`.",
                   "这个程序以 {n} 个进程组成的本机集群运行（{tasks}），就像 {n} 台机器各运行一份：第一个单元格把它保存为 "
                   "`{file}`，第二个在本机为每个任务启动一个进程，各自带上自己的 `TF_CONFIG`（localhost 端口），并显示每个任务的输出"
                   "（`local_cluster` 在设置单元格中定义）。在真正的集群上，请在每台机器上用该机器的 `TF_CONFIG` 运行 `python {file}`。"),
    "cluster_tasks": ("Ran as a local cluster of {n} processes: {tasks}.", "以 {n} 个进程组成的本机集群运行：{tasks}。"),
    "task_passed": ("{task} passed", "{task} 通过"),
    "task_raised": ("{task} raised {exception}", "{task} 抛出 {exception}"),
    "task_stopped": ("{task} was ended after another task failed", "{task} 在另一个任务失败后被结束"),
    "task_served": ("{task} served until the coordinator ended", "{task} 一直提供服务，直到协调者结束"),
    "task_timed_out": ("{task} did not finish", "{task} 没有结束"),
    "task_no_result": ("{task} ended without a result", "{task} 没有结果就结束了"),
    "nb_printed_nothing": ("It printed nothing, so the cell below shows no output.",
                           "它没有任何输出，所以下面的单元格没有输出。"),
    "nb_not_run": ("Not run in {env}: {reason}. The code is on the entry's page.",
                   "未在 {env} 中运行：{reason}。代码见条目页面。"),
    "nb_hangs": ("In {env} this did not finish within {seconds:.0f} s and was stopped, so it has no cell here; "
                 "the code is on the entry's page.",
                 "在 {env} 中它 {seconds:.0f} 秒内没有结束，被终止，因此这里没有它的单元格；代码见条目页面。"),
    "nb_no_record": ("No current recorded run in {env} ({error}): the cell below has no output until you run it.",
                     "{env} 中没有当前的记录运行（{error}）：下面的单元格在你运行之前没有输出。"),
}


def phrase(key: str, lang: str, **fields) -> str:
    """The phrase `key` in `lang`, with `fields` filled in."""
    en, zh = PHRASES[key]
    text = zh if lang == "zh" else en
    return text.format(**fields) if fields else text


def t(key: str, **fields) -> str:
    """The phrase `key` in the current language, with `fields` filled in."""
    return phrase(key, _current, **fields)
