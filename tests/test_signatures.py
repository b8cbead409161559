"""Each entry declares the error messages it answers (`signatures` in its front matter), and the
recorded evidence checks them: every raising snippet's whole message, in every environment where it
raises, ranks its own entry first, also as users paste it (quoted, inside logs, under a traceback
header, headline only, cut off, with their own names and addresses). The real pastes of
tests/corpus/real_errors.jsonl each get the answer they are labelled with.

Ranking is the matcher's: each signature is searched (re.IGNORECASE) in the normalised paste; a
signature scores its number of literal characters, an entry the best of its matching signatures
plus 1 per further match; entries rank by score, then ID.
"""
from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from tfdist_kb.proof import messages
from tfdist_kb.site import registry

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "snippets" / "evidence.json"
CORPUS = ROOT / "tests" / "corpus" / "real_errors.jsonl"


# --------------------------------------------------------------------------------------------
# The matcher: the one of the user-facing package (tfdist/src), on an index built from the pages.

sys.path.insert(0, str(ROOT / "tfdist" / "src"))
from tfdist import matcher  # noqa: E402


def rank(text: str) -> list[tuple[str, tuple[int, int, int]]]:
    """The matcher's answer as (entry, rank key), best first; the key (0 or -1 if the entry matched
    only in a warning or log line, minus the number of the exception in a chain it first matched in,
    score) is larger for a better answer, and two entries tie when their keys are equal."""
    return [(r["id"], (-r["where"][0], -r["where"][1], r["score"])) for r in matcher.match(text, INDEX)]


# --------------------------------------------------------------------------------------------
# What the entries declare, and what the evidence recorded.

def _index() -> dict:
    """The error index as the matcher reads it (schema 1), from the registry and the front matter."""
    entries = []
    for entry in registry.load().values():
        item = {"id": entry.id, "title": entry.title, "path": entry.url, "status": entry.status}
        if entry.status == "published":
            meta, _ = registry.front_matter(entry.page)
            item.update({"tags": meta.get("tags") or [], "fix": meta.get("fix"),
                         "signatures": list(meta.get("signatures") or [])})
        entries.append(item)
    return {"schema": matcher.SCHEMA, "base_url": "http://kb.test/", "entries": entries}


INDEX = _index()
DECLARED = {e["id"]: e["signatures"] for e in INDEX["entries"] if e["status"] == "published"}
FIXES = {e["id"]: e["fix"] for e in INDEX["entries"] if e["status"] == "published"}


def _timing_alternative(record) -> bool:
    """A raised run whose exception is a later one of those its snippet declares thread timing chooses
    between (`raises = [...]`, tfdist_kb.proof.expect). Keras 3's `fit` meets a collective error inside one
    call that also reads the distributed dataset, and which status that call ends with is thread
    timing (TFD016): the collective error (declared first), `Function was cancelled before it was
    started` from a part of the call that had not started, or the dataset's end, after which `fit`
    returns without a step (the snippet's own check then fails). Those later messages name no
    failure a user could paste, so they ask nothing of the signatures; the runs that raised the first
    declared exception (the same snippet elsewhere, or its other runs) do."""
    from tfdist_kb.proof import runner

    path = ROOT / record["snippet"]
    if not path.is_file():
        return False
    declared = runner.expectations(path)[record["env"]].exceptions
    return len(declared) > 1 and record["exception"] in declared[1:]


RAISED = [r for r in json.loads(EVIDENCE.read_text())["runs"] if r["outcome"] == "raised" and not _timing_alternative(r)]


def test_only_a_declared_timing_alternative_leaves_the_raised_runs():
    """A run leaves RAISED only where its snippet declares its exception as a later choice of thread
    timing; the same run where only one exception is declared stays (and must rank)."""
    run = {"snippet": "snippets/TFD016/new_strategy_per_model.py", "exception": "CancelledError",
           "message": "Graph execution error:\n\nFunction was cancelled before it was started"}
    assert _timing_alternative(dict(run, env="tf2.21-keras3"))
    assert not _timing_alternative(dict(run, env="tf2.15"))  # declares InvalidArgumentError only
    assert not _timing_alternative(dict(run, env="tf2.21-keras3", exception="InvalidArgumentError"))
    assert _timing_alternative(dict(run, env="tf2.21-keras3", exception="AssertionError"))
    assert not _timing_alternative(dict(run, env="tf2.21-keras3", exception="RuntimeError"))  # not declared


def _entry(record) -> str:
    return record["snippet"].split("/")[1]


def _rid(record) -> str:
    return f"{record['snippet'].removeprefix('snippets/')}@{record['env']}"


# Identical whole messages raised by snippets of several entries: nothing a user's paste contains
# tells them apart, so the own entry may share the best score (and no other entry may beat it).
TIED = {
    # `Collective ops is aborted by: cluster check alive failed, /job:…/task:N is down` (TF 2.4, 2.5): a
    # peer gone from a collective. A worker that died (TFD024) and workers that ended while the chief
    # saved alone (TFD030) give the same words; nothing in the message tells them apart.
    # A worker told a wrong port for a peer (TFD027) hears the same on those releases.
    "TFD030/only_chief_saves.py@tf2.4": {"TFD024", "TFD027", "TFD030"},
    "TFD030/only_chief_saves.py@tf2.5": {"TFD024", "TFD027", "TFD030"},
    "TFD027/wrong_port_for_a_peer.py@tf2.4": {"TFD024", "TFD027", "TFD030"},
    "TFD027/wrong_port_for_a_peer.py@tf2.5": {"TFD024", "TFD027", "TFD030"},
    # Keras 3, `Need to be inside "with strategy.scope()" for <MirroredStrategy>`, the bare message
    # (raised outside any traced function, so no "in user code" frames are recorded). Optimizer built
    # after the scope (TFD001), model constructed outside and `fit` (TFD002), first apply outside
    # `strategy.run` (TFD003) all end in the same `colocate_vars_with` call. A paste with its
    # traceback tells them apart (`.build(`, `.fit(`, `.apply_gradients(` frames) - see
    # test_frames_break_the_keras3_scope_tie.
    "TFD001/build_optimizer_outside_scope.py@tf2.21-keras3": {"TFD001", "TFD002", "TFD003"},
    "TFD002/outside_scope_compile_in_scope.py@tf2.21-keras3": {"TFD001", "TFD002", "TFD003"},
    "TFD002/sequential_first_call_in_scope_fit.py@tf2.21-keras3": {"TFD001", "TFD002", "TFD003"},
    "TFD003/first_apply_outside_scope.py@tf2.21-keras3": {"TFD001", "TFD002", "TFD003"},
    # Keras 3 placeholder error of an optimizer built lazily inside a traced strategy.run step: the
    # same failure in both entries (TFD002's page sends it to TFD001); the messages differ only in
    # graph node numbering.
    "TFD001/lazy_build_in_traced_step.py@tf2.21-keras3": {"TFD001", "TFD002"},
    "TFD002/sequential_deferred_outside_scope_ctl.py@tf2.21-keras3": {"TFD001", "TFD002"},
    # OptimizerV2 slot check with a plain model variable under the MirroredStrategy: a model built
    # outside the scope (TFD002) and the TF 2.5 flip (a) of TFD003 raise it through the same frames
    # (apply_gradients > _create_all_weights > add_slot); only the user's own function differs.
    "TFD002/functional_dummy_call_in_scope.py@tf2.4": {"TFD002", "TFD003"},
    "TFD002/functional_dummy_call_in_scope.py@tf2.5": {"TFD002", "TFD003"},
    "TFD002/functional_outside_scope_ctl.py@tf2.4": {"TFD002", "TFD003"},
    "TFD002/functional_outside_scope_ctl.py@tf2.5": {"TFD002", "TFD003"},
    "TFD003/optimizer_in_scope_model_outside.py@tf2.5": {"TFD002", "TFD003"},
    # OptimizerV2 slot check under the default strategy for a MirroredVariable: the first
    # apply_gradients outside the scope (TFD003, TF 2.4) and a checkpoint restored outside the scope
    # (TFD013) raise the same message; the frames tell them apart (`apply_gradients(` vs
    # `_create_or_restore_slot_variable`, `.restore(`, `load_weights(`).
    "TFD003/first_apply_outside_scope.py@tf2.4": {"TFD003", "TFD013"},
    "TFD013/restore_outside_scope.py@tf2.4": {"TFD003", "TFD013"},
    "TFD013/restore_outside_scope.py@tf2.5": {"TFD003", "TFD013"},
    "TFD013/restore_outside_scope.py@tf2.15": {"TFD003", "TFD013"},
    "TFD013/restore_outside_scope.py@tf2.21-tfkeras": {"TFD003", "TFD013"},
    # ``SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is
    # set to `tf.VariableAggregation.SUM` ``, word for word: a Keras 2 metric updated outside
    # strategy.run (TFD010, which explains sync-on-read variables) and `fit` on a model constructed
    # outside the scope (TFD002, where Keras's loss metric is updated in the default strategy's step).
    # TFD010 links TFD002 for the `fit` case.
    "TFD002/sequential_first_call_in_scope_fit.py@tf2.4": {"TFD002", "TFD010"},
    "TFD002/sequential_first_call_in_scope_fit.py@tf2.5": {"TFD002", "TFD010"},
    "TFD002/sequential_first_call_in_scope_fit.py@tf2.15": {"TFD002", "TFD010"},
    "TFD002/sequential_first_call_in_scope_fit.py@tf2.21-tfkeras": {"TFD002", "TFD010"},
    "TFD010/metric_updated_outside_run.py@tf1.15": {"TFD002", "TFD010"},
    "TFD010/metric_updated_outside_run.py@tf2.4": {"TFD002", "TFD010"},
    "TFD010/metric_updated_outside_run.py@tf2.5": {"TFD002", "TFD010"},
    "TFD010/metric_updated_outside_run.py@tf2.15": {"TFD002", "TFD010"},
    "TFD010/metric_updated_outside_run.py@tf2.21-tfkeras": {"TFD002", "TFD010"},
}

# Ties allowed for the headline alone, where the whole message tells the entries apart but its
# headline is the tied message above.
HEADLINE_TIED = {
    # the `.apply_gradients(` frame of the whole message ranks TFD003 first; the bare line is the
    # Keras 3 `Need to be inside "with strategy.scope()"` message of the TIED records
    "TFD003/optimizer_in_scope_model_outside.py@tf2.21-keras3": {"TFD001", "TFD002", "TFD003"},
}

# Headlines that do not name the problem on their own: a generic TensorFlow message that points at
# the entry only together with the frames around it (asking the signature to match the bare line
# would answer every user who has that generic error). Their whole messages are still checked.
HEADLINE_NOT_DISTINCTIVE = {
    # TF 2.0.4's fit: `End of sequence` alone is TFD018's message; only the list whose first root error
    # is a cancelled replica (a CancelledError) makes it TFD044's
    "TFD044/fit_until_the_data_ends.py": "`End of sequence` is TFD018's generic headline",
    # gRPC's word for an address nobody answers at; the `remote target /job:ps/...` after it makes it TFD043's
    "TFD043/failing.py": "`failed to connect to all addresses`: any unreachable task",
    # Keras 3 under MultiWorkerMirroredStrategy: the one-component PerReplica of a batch tensor comes later
    "TFD038/fit_multi_worker.py": "`Attempt to convert a value (PerReplica:{` is TFD014's generic headline",
    # tf.function's own message; it is TFD005's only with the EMA frames (`ema.apply(`, moving_averages.py)
    "TFD005/custom_loop_ema_per_replica_object.py": "tf.function's generic variable-creation error",
    # TF 1.15's headline is a bare `SystemError: <built-in function Flatten> returned a result with an
    # error set`; the `experimental_run_v2` frames before it make it TFD014's
    "TFD014/per_replica_captured_in_replica_fn.py": "TF 1.15: nest.Flatten's bare SystemError",
    # TF 2.1.0: `Shape mismatch in the collective instance N. Op at device /job:worker/...` is any shape
    # mismatch between workers (TFD031), and TF 2.0.4's `RecvBufResponse returned N bytes where
    # to_tensor expected M` any buffer of the wrong size; only the `CollectiveGather` node after them
    # makes them TFD036's
    "TFD036/uneven_rows.py": "TF 2.1.0 and 2.0.4: a shape or buffer-size mismatch between workers, a generic headline",
}
# Headlines whose first 60% hold nothing distinctive (short messages whose distinctive part is at the
# end, or the project's description of a message-less exception).
CUT_NOT_DISTINCTIVE = {
    "TFD049/load_weights_after_fit.py": "`unsupported operand type(s) for /: 'Da`: the operand types come last; the "
                                        "prefix alone is any division of two things Python cannot divide",
    "TFD049/load_after_evaluate.py": "the same message as TFD049/load_weights_after_fit.py",
    "TFD041/pass_the_dataset_itself.py": "`TypeError: unsupported `: a short message whose last word is the point",
    "TFD041/failing.py": "`Input has an error, ... Failed copying input tensor from /job:chief/... to /j`: what could "
                         "not be copied (`Unable to parse tensor proto`) comes last",
    "TFD039/cluster_size_differs.py": "`Collective ops is aborted by: Device /job:worker/r`: the group sizes come after; "
                                      "the prefix alone is any collective aborted by a peer",
    "TFD027/wrong_port_for_a_peer.py": "`{{function_node __wrapped__CollectiveBcastRecv_device_/job:worker/replica:0/task:3/device:` "
                                       "(TF 2.15): the words `failed to connect to all addresses` come after",
    "TFD039/host_list_order_differs.py": "`Collective ops is aborted by: /job:worker/replica:0/task:3/dev`: the words "
                                         "`unknown device` come last; the prefix alone names only the device asked for",
    "TFD040/predict_last_batch_smaller_than_replicas.py": "`could not broadcast input array from sh`: the shapes come "
                                                          "after; the prefix alone is any numpy broadcasting error",
    "TFD042/load_savedmodel_of_sharded_model.py": "`Can't convert node <class 'tensorflow.python.saved_model.load.Loader._recrea`: "
                                                  "the revived class (`_UserObject`) comes after; the prefix alone is any "
                                                  "SavedModel object the loader cannot use as a tensor",
    "TFD017/fit_generator_under_strategy.py": "`'Sequential' object has no attr` (Keras 3): the attribute is the point",
    "TFD033/add_per_replica_results.py": "`unsupported operand type(s) for +: 'Pe`: the operand types come after; "
                                         "the prefix alone is any Python TypeError of `+`",
    "TFD033/format_per_replica_loss.py": "`unsupported format string passed t`: the type (`PerReplica.__format__`) "
                                         "comes after; the prefix alone is any object's format error",
    "TFD030/all_workers_same_dir.py": "`…/variables/variables_temp/part-00000-of-00001.data-0…`: "
                                      "`No such file or directory [Op:MergeV2Checkpoints]` comes last",
    "TFD030/only_chief_saves.py": "`{{function_node __wrapped__CollectiveReduceV2…}} Collective ops is aborted by: Error "
                                  "reported from …` / `[_Derived_]Collective ops is aborted by: cluster check alive f`: the "
                                  "cause (heartbeat timeout, unhealthy tasks, check alive failed) comes after",
    "TFD024/worker_dies.py": "`Collective ops is aborted by: So` / `[_Derived_]Collective ops is aborted by`: the cause "
                             "(a closed socket, a reset connection) comes after; the prefix alone is shared with "
                             "shape-mismatch aborts (TFD016, tensorflow/tensorflow#56885)",
    "TFD001/build_optimizer_outside_scope.py": "`'Adam' object has no a`: the attribute is the point",
    "TFD003/optimizer_in_scope_model_outside.py":
        "AssertionError with no message: the headline is the project's description of where it was raised",
    "TFD005/custom_loop_ema_apply_outside_scope.py":
        "`Expected float32 passed to parameter 'y' of op`: the MirroredVariable comes after",
    "TFD005/keras_optimizer_use_ema.py": "`Unexpected keyword argument passed t`: the argument comes after",
    "TFD014/per_replica_as_tensor.py": "`Attempt to convert a valu` (TF 1.15 to 2.5): the PerReplica comes after",
    "TFD017/step_with_old_name.py": "`'MirroredStrategy' object has no att`: the attribute is the point",
    "TFD017/step_with_new_name.py": "`'MirroredStrategyV1' object ha`: the attribute is the point",
    "TFD017/dataset_fn_with_new_name.py": "`'MirroredStrategyV1' object has no attribute 'distri`: the attribute is the point",
    "TFD017/compat_v1_strategy_old_name.py": "`'MirroredStrategyV1' object has no attri`: the attribute is the point",
    "TFD017/contrib_strategy.py": "`module 'tensorflow' has no `: the attribute is the point",
    "TFD047/no_cluster_resolver.py": "`__init__() missing 1 required positiona` (TF 2.4, 2.5): the argument is the point",
    "TFD018/get_next_past_the_end_of_the_data.py":
        "`End of s` (TF 2.4), `{{function_node __wrapped__IteratorGetNext_output_types_1_device_/job:localhost/replic` "
        "(TF 2.15 on): the words `End of sequence` come last",
    # `Mixing different tf.distribute.Strategy objects: <...MirroredStrategy object at 0x…> is not <...`:
    # the second strategy, which tells two MirroredStrategy objects (TFD007) from an optimizer built
    # outside any scope (TFD001, `_DefaultDistributionStrategy`), is in the last 40%
    "TFD007/second_strategy_for_fine_tuning.py": "`Mixing ... is not <tensorflow.py`: the second strategy comes after",
    "TFD007/custom_loop_second_strategy.py":
        "`Mixing ... is not <...`, `colocate_vars_with ... Strategy.sco`: the strategy or MirroredVariable comes after",
    "TFD048/none_as_sample_weight.py": "`'NoneType' object has no attr` (Keras 3): the attribute (`device`) is the point",
    "TFD011/keras_apply_gradients_in_cross_replica_context.py":
        "`'NoneType' object has no att`: the attribute (`merge_call`) is the point",
    **HEADLINE_NOT_DISTINCTIVE,
}


def _check(record, text, what):
    ranking = rank(text)
    own = _entry(record)
    assert ranking, f"{_rid(record)} ({what}): no entry matches\n{text[:600]}"
    best = ranking[0][1]
    top = {eid for eid, score in ranking if score == best}
    allowed = TIED.get(_rid(record), {own})
    if what.startswith("headline"):
        allowed = allowed | HEADLINE_TIED.get(_rid(record), set())
    tie = f" (tie allowed only with {sorted(allowed)})" if len(allowed) > 1 else ""
    assert own in top and top <= allowed, (
        f"{_rid(record)} ({what}): ranking {ranking[:4]}; own entry {own} must be first{tie}\n"
        f"{matcher.normalise(text)[:800]}")


# --------------------------------------------------------------------------------------------
# The declarations themselves.

def test_every_published_entry_declares_a_fix_and_signatures():
    assert matcher.check(INDEX) == []  # every signature compiles and has literal characters
    for eid in DECLARED:
        fix = FIXES[eid]
        assert isinstance(fix, str) and fix.strip() and "\n" not in fix.strip(), f"{eid}: `fix` must be one line"
        assert DECLARED[eid], f"{eid}: no signatures"
        for pattern in DECLARED[eid]:
            re.compile(pattern, re.IGNORECASE)


def test_signatures_name_nothing_of_ours():
    """A user's paste names their files, never ours: no signature may lean on our paths or names."""
    stems = {p.stem for p in (ROOT / "snippets").rglob("*.py")}
    ours = ["snippets/TFD001/build_optimizer_in_scope.py", "TFD001", "tfdist_kb/proof/child.py", f"{ROOT}/"]
    for eid, patterns in DECLARED.items():
        for pattern in patterns:
            assert not re.search(r"snippets|TFD\d|tfdist|child\.py", pattern, re.IGNORECASE), (eid, pattern)
            assert not any(stem in pattern for stem in stems), (eid, pattern)
            for text in ours:
                assert not re.search(pattern, text, re.IGNORECASE), (eid, pattern, text)


# --------------------------------------------------------------------------------------------
# Every raising record, whole and as pasted.

_LOG_BEFORE = (
    "2024-01-01 12:00:00.123456: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.\n"
    "2024-01-01 12:00:01.654321: W tensorflow/core/common_runtime/gpu/gpu_device.cc:2211] Cannot dlopen some GPU "
    "libraries. Skipping registering GPU devices...\n"
    "INFO:tensorflow:Using MirroredStrategy with devices ('/job:localhost/replica:0/task:0/device:GPU:0', "
    "'/job:localhost/replica:0/task:0/device:GPU:1')\n"
    "2024-01-01 12:00:02.000001: W tensorflow/core/grappler/optimizers/data/auto_shard.cc:786] AUTO sharding "
    "policy will apply DATA sharding policy as it failed to apply FILE sharding\n"
)
_LOG_AFTER = "\n\nProcess finished with exit code 1\n"
# The auto-shard line of _LOG_BEFORE is answered by TFD014 (with a low score, so that an entry whose
# error follows it in a log still ranks first): the unrelated log below leaves it out.
_AUTO_SHARD_LINE = next(line for line in _LOG_BEFORE.splitlines(keepends=True) if "auto_shard.cc" in line)
_LOG_NOISE = _LOG_BEFORE.replace(_AUTO_SHARD_LINE, "")
_TRACEBACK_HEADER = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/project/train.py", line 88, in <module>\n'
    "    main(args)\n"
    '  File "/home/user/project/train.py", line 71, in main\n'
    "    run_epoch(strategy, dataset)\n"
)


# Frequent errors that no entry answers, some close in wording to the ones they do.
UNRELATED = [
    _LOG_NOISE + _TRACEBACK_HEADER + _LOG_AFTER,
    "ValueError: No gradients provided for any variable: (['dense/kernel:0', 'dense/bias:0'],).",
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: You must feed a value for placeholder tensor "
    "'input_1' with dtype float and shape [?,28,28,1]\n\t [[{{node input_1}}]]",
    "ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function.",
    "ValueError: tf.function-decorated function tried to create variables on non-first call.",
    "Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n"
    "    assert x.shape == y.shape\nAssertionError",
    "ValueError: Unknown layer: 'CustomBlock'. Please ensure you are using a `keras.utils.custom_object_scope` "
    "and that this object is included in the scope.",
    "ResourceExhaustedError: OOM when allocating tensor with shape[64,256,56,56] and type float on "
    "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
    "TypeError: Expected float32 passed to parameter 'y' of op 'Maximum', got 'abc' of type 'str' instead.",
    "AttributeError: 'Sequential' object has no attribute 'build_model'",
    "TypeError: __init__() got an unexpected keyword argument 'lr'",
]


@pytest.mark.parametrize("text", UNRELATED, ids=[f"unrelated{i}" for i in range(len(UNRELATED))])
def test_unrelated_errors_match_nothing(text):
    assert rank(text) == [], matcher.match(text, INDEX)[0]["matched"]


def test_auto_shard_log_line_alone_is_tfd014s():
    assert [eid for eid, _ in rank(_AUTO_SHARD_LINE)] == ["TFD014"]


def _whole(record) -> str:
    """What a user pastes of a recorded exception: `Type: message`, or for one with no message the
    frame it was raised in and the bare type (tfdist_kb.proof.messages.printed)."""
    return messages.printed(record["exception"], record["message"], record["headline"])


def _renamed(text: str, strategy: str | None = None) -> str:
    """The user's own names, files and addresses instead of ours."""
    text = re.sub(r'"?snippets/TFD\d+/\w+\.py"?(:\d+)?',
                  lambda m: '"/home/user/project/train.py"' if m.group(0).startswith('"') else
                  "/home/user/project/train.py" + (m.group(1) or ""), text)
    text = text.replace("/work/main/tfdist_kb/proof/child.py", "/home/user/project/launch.py")
    text = text.replace("work/main/", "home/user/project/")
    text = re.sub(r"  # [^\n]*", "", text)  # our comments on code lines
    text = re.sub(r"\bdense\b", "encoder_block_3", text)
    text = re.sub(r"\bkernel\b", "w_proj", text)
    text = re.sub(r"\bmodel(?=\.[A-Za-z_]|\()", "net", text)
    text = text.replace("numpy=…", "numpy=\narray([[ 0.1234, -0.5678],\n       [ 0.9, 0.0 ]], dtype=float32)")
    if strategy:
        text = text.replace("mirrored_strategy.MirroredStrategy object at 0x…", strategy)
    addresses = iter(f"0x7f{n:010x}" for n in range(0x3a2c1b5e80, 0x3a2c1b5e80 + 1000, 0x10))
    return re.sub(r"0x…", lambda m: next(addresses), text)


def _backslash_wrapped(line: str, width: int = 78) -> str:
    """A line cut every `width` characters, mid-word too, each cut marked with a backslash and the
    rest indented (a wrapping tool keeps a space before the backslash, never after the indent)."""
    parts = []
    while len(line) > width:
        cut = width
        while cut < len(line) and line[cut] in " \t":
            cut += 1
        parts.append(line[:cut])
        line = line[cut:]
    return "\\\n    ".join(parts + [line])


def _headline(record) -> str:
    return record.get("headline") or record["message"].strip().splitlines()[0]


def _variants(record):
    whole = _whole(record)
    snippet = record["snippet"].removeprefix("snippets/")
    yield "whole", whole
    yield "quoted", "\n".join("> " + line for line in whole.splitlines())
    yield "in logs", _LOG_BEFORE + whole + _LOG_AFTER
    yield "under a traceback header", _TRACEBACK_HEADER + whole
    yield "pytest output", "\n".join("E       " + line for line in whole.splitlines())
    yield "typographic quotes", whole.replace("'", "\u2019").replace('"', "\u201d")
    yield "wrapped at 78 with backslashes", "\n".join(_backslash_wrapped(line) for line in whole.splitlines())
    yield "wrapped at 60 between words", "\n".join(
        textwrap.fill(line, 60, break_long_words=False, break_on_hyphens=False) for line in whole.splitlines())
    yield "renamed", _renamed(whole)
    yield "other strategy", _renamed(whole, "tpu_strategy.TPUStrategyV2 object at 0x7fee4d7614f0")
    yield "quoted, renamed, in logs", "\n".join("> " + line for line in (_LOG_BEFORE + _renamed(whole)).split("\n"))
    if snippet not in HEADLINE_NOT_DISTINCTIVE and record["message"].strip():  # a bare exception's headline
        headline = _headline(record)  # is the runner's account of where it was raised: nothing a user pastes
        yield "headline", f"{record['exception']}: {headline}"
        yield "headline renamed", f"{record['exception']}: {_renamed(headline)}"
        if snippet not in CUT_NOT_DISTINCTIVE:
            cut = headline[: int(len(headline) * 0.6)]
            yield "headline cut at 60%", f"{record['exception']}: {cut}"
            yield "headline cut at 60%, no exception name", cut


@pytest.mark.parametrize("record", RAISED, ids=[_rid(r) for r in RAISED])
def test_recorded_message_ranks_its_entry_first(record):
    for what, text in _variants(record):
        _check(record, text, what)


# Each line TFD033/what_each_use_raises.py prints: a use of a PerReplica (name column, 26 wide) and
# the first line of what refused it. Python's refusals of an operator, a format, a conversion, an
# index, an iteration or a comparison, and Keras's metric refusing one, are TFD033's (using what
# strategy.run returned as a number); TensorFlow's conversion to a tensor (ValueError) and a missing
# attribute (`.numpy()`, as on a distributed batch) are TFD014's (reading PerReplica values).
_PER_REPLICA_USES = "snippets/TFD033/what_each_use_raises.py"
_USE_LINE = re.compile(r"^(?P<use>.{26}) (?P<message>(?P<exception>\w+): .+)$")


def per_replica_uses() -> list[tuple[str, str, str]]:
    """(what, message, the entry that answers it) for every line the snippet printed, in every run."""
    out = []
    for record in json.loads(EVIDENCE.read_text())["runs"]:
        if record["snippet"] != _PER_REPLICA_USES or record["outcome"] != "passed":
            continue
        for line in record["stdout"].splitlines():
            found = _USE_LINE.match(line)
            assert found, (record["env"], line)
            own = "TFD014" if found["exception"] in ("ValueError", "AttributeError") else "TFD033"
            out.append((f"{found['use'].strip()} on {record['env']}", found["message"], own))
    return out


def test_every_refused_use_of_a_per_replica_ranks_its_entry_first():
    uses = per_replica_uses()
    assert len(uses) >= 6 * 12, "every use, in each environment that runs every snippet"
    assert {own for *_, own in uses} == {"TFD014", "TFD033"}
    for what, message, own in uses:
        ranked = rank(message)
        assert ranked and ranked[0][0] == own, (what, message, ranked[:3])


def test_allow_lists_name_real_records():
    ids = {_rid(r) for r in RAISED}
    assert set(TIED) | set(HEADLINE_TIED) <= ids, sorted(set(TIED) | set(HEADLINE_TIED) - ids)
    snippets = {r["snippet"].removeprefix("snippets/") for r in RAISED}
    assert set(HEADLINE_NOT_DISTINCTIVE) <= snippets and set(CUT_NOT_DISTINCTIVE) <= snippets


# Keras 3 tracebacks of the tied message, from runs of the three snippets in the Keras 3 environment
# (default traceback filtering; the user's file, paths and arguments shortened): the frames decide.
_K3 = ("RuntimeError: Need to be inside \"with strategy.scope()\" for "
       "<tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7f89d8b2d6d0>")
_K3_FRAMES = {
    "TFD002": ('  File "train.py", line 26, in <module>\n'
               '    model.fit(x_train, y_train, batch_size=8, epochs=1, verbose=0)\n'
               '  File ".../keras/src/utils/traceback_utils.py", line 122, in error_handler\n'
               "    raise e.with_traceback(filtered_tb) from None\n"
               '  File ".../keras/src/backend/tensorflow/optimizer.py", line 32, in add_variable_from_reference\n'
               "    with self._distribution_strategy.extended.colocate_vars_with(\n"),
    "TFD001": ('  File "train.py", line 26, in <module>\n'
               "    optimizer.build(model.trainable_variables)\n"
               '  File ".../keras/src/optimizers/adam.py", line 93, in build\n'
               "    self._momentums, self._velocities = self.add_optimizer_variables(\n"
               '  File ".../keras/src/optimizers/base_optimizer.py", line 389, in add_optimizer_variables\n'
               "    self.add_variable_from_reference(\n"
               '  File ".../keras/src/backend/tensorflow/optimizer.py", line 32, in add_variable_from_reference\n'
               "    with self._distribution_strategy.extended.colocate_vars_with(\n"
               '  File ".../tensorflow/python/distribute/distribute_lib.py", line 2639, in colocate_vars_with\n'
               "    _require_strategy_scope_extended(self)\n"),
    "TFD003": ('  File "train.py", line 31, in <module>\n'
               "    optimizer.apply_gradients(zip(grads, model.trainable_variables))\n"
               '  File ".../keras/src/optimizers/base_optimizer.py", line 462, in apply_gradients\n'
               "    self.apply(grads, trainable_variables)\n"
               '  File ".../keras/src/optimizers/base_optimizer.py", line 501, in apply\n'
               "    self.build(trainable_variables)\n"
               '  File ".../keras/src/optimizers/adam.py", line 93, in build\n'
               "    self._momentums, self._velocities = self.add_optimizer_variables(\n"
               '  File ".../keras/src/backend/tensorflow/optimizer.py", line 32, in add_variable_from_reference\n'
               "    with self._distribution_strategy.extended.colocate_vars_with(\n"),
}


# The same `fit`, with Keras's traceback filtering off.
_K3_FIT_UNFILTERED = (
    '  File "launch.py", line 7, in <module>\n'
    '    runpy.run_path(sys.argv[1], run_name="__main__")\n'
    '  File "<frozen runpy>", line 291, in run_path\n'
    '  File "<frozen runpy>", line 98, in _run_module_code\n'
    '  File "<frozen runpy>", line 88, in _run_code\n'
    '  File "train.py", line 26, in <module>\n'
    '    model.fit(np.ones((16, 3), "float32"), np.zeros((16, 2), "float32"), batch_size=8, epochs=1, verbose=0)\n'
    '  File ".../site-packages/keras/src/utils/traceback_utils.py", line 113, in error_handler\n'
    '    return fn(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 399, in fit\n'
    '    logs = self.train_function(iterator)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 241, in function\n'
    '    opt_outputs = multi_step_on_iterator(iterator)\n'
    '                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler\n'
    '    raise e.with_traceback(filtered_tb) from None\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 154, in multi_step_on_iterator\n'
    '    one_step_on_data(iterator.get_next())\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 125, in wrapper\n'
    '    result = step_func(converted_data)\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 134, in one_step_on_data\n'
    '    outputs = self.distribute_strategy.run(step_function, args=(data,))\n'
    '              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/trainer.py", line 84, in train_step\n'
    '    self.optimizer.apply_gradients(zip(gradients, trainable_weights))\n'
    '  File ".../site-packages/keras/src/optimizers/base_optimizer.py", line 462, in apply_gradients\n'
    '    self.apply(grads, trainable_variables)\n'
    '  File ".../site-packages/keras/src/optimizers/base_optimizer.py", line 501, in apply\n'
    '    self.build(trainable_variables)\n'
    '  File ".../site-packages/keras/src/optimizers/adam.py", line 93, in build\n'
    '    self._momentums, self._velocities = self.add_optimizer_variables(\n'
    '                                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File ".../site-packages/keras/src/optimizers/base_optimizer.py", line 389, in add_optimizer_variables\n'
    '    self.add_variable_from_reference(\n'
    '  File ".../site-packages/keras/src/backend/tensorflow/optimizer.py", line 32, in add_variable_from_reference\n'
    '    with self._distribution_strategy.extended.colocate_vars_with(\n'
    '         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
)


@pytest.mark.parametrize("eid, frames", sorted(_K3_FRAMES.items()) + [("TFD002", _K3_FIT_UNFILTERED)],
                         ids=sorted(_K3_FRAMES) + ["TFD002-unfiltered"])
def test_frames_break_the_keras3_scope_tie(eid, frames):
    ranking = rank("Traceback (most recent call last):\n" + frames + _K3)
    assert ranking[0][0] == eid and (len(ranking) == 1 or ranking[0][1] > ranking[1][1]), ranking


# --------------------------------------------------------------------------------------------
# Root cause first: a paste holding several errors, or an error and warning lines.

def _alone(eid: str) -> str:
    """The whole recorded message (`Type: message`) of a raising run of `eid` that ranks `eid` alone."""
    for record in RAISED:
        text = _whole(record)
        if _entry(record) == eid and [e for e, _ in rank(text)] == [eid]:
            return text
    raise AssertionError(f"{eid}: no recorded message ranks it alone")


_CHAINS = ["\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n",
           "\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n"]


@pytest.mark.parametrize("first, then", [("TFD011", "TFD002"), ("TFD002", "TFD011"), ("TFD016", "TFD009")])
@pytest.mark.parametrize("chain", [0, 1], ids=["during-handling", "direct-cause"])
def test_the_first_exception_of_a_chain_ranks_first(first, then, chain):
    """Two recorded messages chained as Python prints them: the earlier one (the cause) names the entry
    that comes first, whichever scores more."""
    ranking = rank("Traceback (most recent call last):\n" + _alone(first) + _CHAINS[chain] + _alone(then))
    assert [eid for eid, _ in ranking] == [first, then], ranking


@pytest.mark.parametrize("eid", ["TFD004", "TFD011", "TFD016"])
@pytest.mark.parametrize("line", [
    "2024-01-01 12:00:02.000001: W tensorflow/core/grappler/optimizers/data/auto_shard.cc:786] AUTO sharding "
    "policy will apply DATA sharding policy as it failed to apply FILE sharding policy",
    "W0000 00:00:1701234567.123456   12345 auto_shard.cc:786] AUTO sharding policy will apply DATA sharding policy",
    "WARNING:tensorflow:AUTO sharding policy will apply DATA sharding policy as it failed to apply FILE sharding",
], ids=["glog", "absl", "python-logging"])
def test_an_error_ranks_before_a_warning_line(eid, line):
    """A warning line that an entry answers (TFD014's auto-shard fallback) ranks after the error in
    the same paste, before or after it."""
    for text in (line + "\n" + _alone(eid), _alone(eid) + "\n" + line):
        ranking = rank(text)
        assert [e for e, _ in ranking] == [eid, "TFD014"], ranking


@pytest.mark.parametrize("eid, prefix", [
    ("TFD006", "2024-01-01 12:00:03.000001: E tensorflow/core/common_runtime/executor.cc:1197] "),
    ("TFD010", "INFO:tensorflow:Error reported to Coordinator: "),
], ids=["E-line", "coordinator"])
def test_an_error_in_a_log_line_ranks_before_a_warning(eid, prefix):
    """An error that a log line carries (TensorFlow's E lines, an error reported to the Coordinator)
    is an error, not a warning: it ranks before the auto-shard warning printed just before it."""
    warning = ("2024-01-01 12:00:02.000001: W tensorflow/core/grappler/optimizers/data/auto_shard.cc:786] AUTO "
               "sharding policy will apply DATA sharding policy as it failed to apply FILE sharding policy\n")
    message = next(r["headline"] for r in RAISED if _entry(r) == eid and [e for e, _ in rank(r["headline"])] == [eid])
    ranking = rank(warning + prefix + message)
    assert [(e, key[:2]) for e, key in ranking] == [(eid, (0, 0)), ("TFD014", (-1, 0))], ranking


def test_every_match_holds_the_literal_the_matcher_looks_for_first():
    """matcher.required_literal: a signature runs only where its longest plain run is in the text; on
    every recorded message and real paste, each signature that matches holds it."""
    texts = [matcher.normalise(_whole(r)) for r in RAISED]
    texts += [matcher.normalise(p["error_text"]) for p in corpus()]
    for eid, signatures in DECLARED.items():
        for signature in signatures:
            pattern = re.compile(signature, re.IGNORECASE)
            needed = matcher.required_literal(signature)
            for text in texts:
                if pattern.search(text):
                    assert needed in text.casefold(), (eid, signature, needed)


@pytest.mark.parametrize("pattern, literal", [
    (r"Need to be inside .?with strategy\.scope\(\)", "with strategy.scope()"),
    (r"^(?!.*(?:A|B)).*?Make sure", "make sure"),
    (r"a|b", ""), (r"(?:abc)", ""), (r"abcd?", "abc"), (r"x+yz", "yz"), (r"\w{0,4}tail", "tail"),
])
def test_required_literal(pattern, literal):
    assert matcher.required_literal(pattern) == literal


# --------------------------------------------------------------------------------------------
# Real pastes from public issues (tests/corpus/real_errors.jsonl, see its README): each is labelled
# with the entry that answers it (`label`, with `tied_with` where the paste is word for word a
# message that snippets of other entries raise too) or `uncovered` (with `why` no entry does).

def corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def corpus_problem(paste: dict, ranking: list[tuple[str, tuple[int, int, int]]]) -> str | None:
    """Why `ranking` (the matcher's, best first) is not the answer the paste is labelled with."""
    if paste["label"] == "uncovered":
        return f"{paste['source']} (uncovered: {paste['why']}): matches {ranking[:3]}" if ranking else None
    own, allowed = paste["label"], {paste["label"], *paste.get("tied_with", ())}
    top = {eid for eid, score in ranking if ranking and score == ranking[0][1]}
    if not ranking or ranking[0][0] != own or not top <= allowed:
        return f"{paste['source']} (labelled {own}, ties allowed with {sorted(allowed - {own})}): ranking {ranking[:5]}"
    return None


def test_corpus_is_labelled():
    """The labels name published entries (test_corpus.py holds the rest of the corpus's form)."""
    pastes = corpus()
    assert len({p["source"] for p in pastes}) == len(pastes), "one paste per source"
    for p in pastes:
        if p["label"] != "uncovered":
            assert p["label"] in DECLARED, f"{p['source']}: {p['label']} is not a published entry"
            assert set(p["tied_with"]) <= set(DECLARED) - {p["label"]}, p["source"]
        else:
            assert p["why"].strip() and not p["tied_with"], p["source"]


def test_real_pastes_get_their_labelled_answer(capsys):
    """Every labelled paste ranks its entry first in `tfdist explain`'s matcher; an uncovered one
    matches no entry (no false link)."""
    pastes = corpus()
    problems = [problem for p in pastes if (problem := corpus_problem(p, rank(p["error_text"])))]
    labelled = [p for p in pastes if p["label"] != "uncovered"]
    with capsys.disabled():
        print(f"\nreal_errors.jsonl: {len(labelled) - sum('labelled' in x for x in problems)}/{len(labelled)} "
              f"labelled pastes rank their entry first; "
              f"{len(pastes) - len(labelled) - sum('uncovered:' in x for x in problems)}/{len(pastes) - len(labelled)} "
              f"uncovered ones match nothing")
    assert not problems, "\n".join(problems)
