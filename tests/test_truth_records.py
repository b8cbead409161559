"""What a run's record holds is what pages publish and what every re-run must give again.

- The whole message and its headline are recorded normalised (tfdist_kb.proof.messages.message): what
  depends on the machine (where the checkout, Python and temporary folders live) or on which
  replica reported first is left out before the record is stored. Pages render only the stored
  fields, and a re-run compares both exactly (evidence.COMPARED), so a hand-edited message, shown in
  the "Whole message" fold, is caught.
- Every executed record names the 4 distinct devices its replicas were on (`ran_on`), raised and
  hung runs included: the evidence alone shows that every error was reproduced on 4 replicas.

Each check is proved by a mutation of a real record that must be caught.
"""
import shutil
from pathlib import Path

import pytest

from tfdist_kb.proof import envs, evidence, expect, messages, runner, witness
from tfdist_kb.site import macros

ROOT = runner.ROOT
# A quick snippet of the default environment whose message names its own file (`File "snippets/..."`)
RAISING = "TFD014/per_replica_captured_in_replica_fn.py"


# ---- the normaliser: no result depends on where the checkout lives -----------------------------

# Messages as each release writes them, with the places of one machine filled in
# ({root}: the checkout; {tail}: the checkout's path without its leading "/", as TF 2.4 shortens it).
SHAPES = [
    # TF 2.4 / 2.5: a node's creation site, shortened by the common prefix of the traceback's files
    ("assertion failed: [x]\n\t [[node Assert/Assert (defined at {tail}/snippets/TFD004/revived_dummy_call.py:82) ]]"
     " [Op:__inference_restored_function_body_769]\n\nFunction call stack:\nrestored_function_body"),
    # TF 1.15 AutoGraph: paths relative to the checkout, which it names
    ("in converted code:\n    relative to {root}:\n\n    snippets/TFD010/accumulator_without_aggregation.py:27 replica_fn  *\n"
     "        total.assign_add(1.0)\n    .envs/tf1.15/lib/python3.7/site-packages/tensorflow_core/python/distribute/"
     "values.py:1016 _assign_func\n        variable_type=\"MirroredVariable\"))\n\n    ValueError: You must specify an "
     "aggregation method to update a MirroredVariable in Replica Context."),
    # TF 2.x: absolute paths of the snippet and of the environment's packages
    ("in user code:\n\n    File \"{root}/snippets/TFD014/per_replica_captured_in_replica_fn.py\", line 29, in replica_fn  *\n"
     "        return loss_fn(batch)\n    File \"{root}/.envs/tf2.15/lib/python3.11/site-packages/keras/src/a.py\", line 3, "
     "in call\n\n    ValueError: Flattening a PerReplica to components is not supported in replica context."),
    # a file the snippet wrote into its temporary folder, and the checkout named alone
    "could not open {root}/snippets/TFD013/x.py: saved under /tmp/tfdist-ab12cd34/tmp/model.keras, cwd {root}",
]
CHECKOUTS = ["/work/main", "/tmp/tmp/checkout", "/tmp/tmpab12cd34/main", "/tmp/pytest-of-ci/pytest-7/test_x0/repo",
             "/home/me/My tmp/knowledge base", "/srv/snippets/TFD001/clone"]


@pytest.mark.parametrize("shape", SHAPES, ids=["tf2.4-defined-at", "tf1.15-relative-to", "tf2-absolute", "tmpdir"])
def test_recorded_message_does_not_depend_on_where_the_checkout_lives(shape):
    recorded = {root: messages.message(shape.format(root=root, tail=root.lstrip("/")), Path(root)) for root in CHECKOUTS}
    assert len(set(recorded.values())) == 1, recorded
    text, headline = recorded[CHECKOUTS[0]]
    for root in CHECKOUTS:
        assert root not in text and root.lstrip("/") not in text, (root, text)
    assert "/tmp/" not in text and "tfdist-ab12cd34" not in text
    assert messages.without_replica_choice(messages.normalise(text)) == text  # stored form is a fixed point
    assert headline and headline in text


def test_paths_outside_the_checkout_keep_their_meaning():
    """Only places of the machine are left out: the snippet's own path and the package file stay."""
    text, _ = messages.message('File "/work/main/snippets/TFD001/x.py", line 3\n'
                               'File "/opt/py/lib/python3.11/site-packages/keras/src/a.py", line 9', Path("/work/main"))
    assert text == 'File "snippets/TFD001/x.py", line 3\nFile "…/lib/python3.11/site-packages/keras/src/a.py", line 9'


def test_which_replica_reported_first_is_left_out_of_the_record():
    """Four replicas fail at once: the node named, its context lines and (here) where the cap would
    cut change with the replica that reports first. The record is the same whichever it was."""
    def raw(suffix, context):
        node = "cond/Placeholder" + suffix
        block = (f"Detected at node {node} defined at (most recent call last):\n"
                 + "".join(f'  File "/work/main/.envs/tf2.21-keras3/lib/python3.11/site-packages/t/f{i}.py", line {i}, in g\n\n'
                           for i in range(40)))
        errors = "".join(f"  ({i}) INVALID_ARGUMENT:  You must feed a value for placeholder tensor 'cond/else/_1/{node}' "
                         f"with dtype int32\n\t [[{{{{node {node}}}}}]]\n" + "".join(f"\t [[{c}]]\n" for c in context[i:])
                         for i in range(4))
        return ("Graph execution error:\n\n" + block * 4 + "4 root error(s) found.\n" + errors
                + "0 successful operations.\n0 derived errors ignored. [Op:__inference_fn_with_cond_2071]")
    one = messages.message(raw("", ["cond/pivot_t/_4/_45", "LogicalAnd_15/_28", "cond/then/_0/group_deps/_137"]))
    other = messages.message(raw("_3", ["cond/else/_1/cond/Placeholder_3/_94", "LogicalAnd_15/_30"]))
    assert one == other
    assert one[1] == "You must feed a value for placeholder tensor 'cond/else/_1/cond/Placeholder' with dtype int32"
    assert "[[{{node cond/Placeholder}}]]" in one[0] and "LogicalAnd" not in one[0]
    assert "__inference_fn_with_cond_2071" in one[0]  # a name that is the same in every run is kept


@pytest.mark.parametrize("suffix", ["", "_1", "_2", "_3"])
def test_the_failing_node_is_named_as_replica_0_names_it(suffix):
    """Seen in TFD016's collision: the node a name ending in a digit (`CollectiveReduceV2`) reports."""
    raw = (f"Graph execution error:\n\nDetected at node adam_1/CollectiveReduceV2{suffix} defined at (most recent call last):\n"
           f"  File \"/work/main/snippets/TFD016/x.py\", line 3, in <module>\n\nCollective ops is aborted by: Shape "
           f"mismatch. Op at device /job:localhost/replica:0/task:0/device:CPU:{suffix[1:] or 0} expected shape [244]\n"
           f"\t [[{{{{node adam_1/CollectiveReduceV2{suffix}}}}}]] [Op:__inference_multi_step_on_iterator_3121]")
    text, _ = messages.message(raw, Path("/work/main"))
    assert "Detected at node adam_1/CollectiveReduceV2 defined at" in text and "device:CPU:N expected" in text
    assert "[[{{node adam_1/CollectiveReduceV2}}]] [Op:__inference_multi_step_on_iterator_3121]" in text


def test_names_that_do_not_depend_on_the_replica_are_kept():
    said = "Tried to create variable dense/kernel/replica_1/ExponentialMovingAverage/ with mismatching name on device 1"
    assert messages.message(said) == (said, said)
    array = "Expected\n[[1.]]\n[[2.]]"  # a printed array is not a context line
    assert messages.message(array)[0] == array


def test_an_exception_with_no_message_records_where_it_was_raised():
    """A bare `assert` (TFD011 on TF 1.13.2): the message stays empty, the headline says where, from
    the child's traceback, with the machine's paths left out; `printed` gives back Python's last lines."""
    traceback = ('Traceback (most recent call last):\n'
                 '  File "/work/main/tfdist_kb/proof/child.py", line 190, in main\n    exec(code, namespace)\n'
                 '  File "/work/main/snippets/TFD011/x.py", line 17, in <module>\n'
                 '    with tf.compat.v1.colocate_with(weight):\n'
                 '  File "/opt/envs/tf1.13.2/lib/python3.7/site-packages/tensorflow/python/distribute/values.py", '
                 'line 451, in _tensor_conversion_mirrored\n    assert not as_ref\nAssertionError\n')
    text, headline = messages.message("", Path("/work/main"), traceback=traceback)
    where = '"…/lib/python3.7/site-packages/tensorflow/python/distribute/values.py", line 451, in _tensor_conversion_mirrored'
    assert (text, headline) == ("", f"with no message, raised at {where}: assert not as_ref")
    assert messages.printed("AssertionError", text, headline) == f"  File {where}\n    assert not as_ref\nAssertionError"
    assert messages.printed("ValueError", "x", "x") == "ValueError: x"
    assert messages.one_line("AssertionError", headline) == f"AssertionError {headline}"
    assert messages.one_line("ValueError", "x") == "ValueError: x"
    assert messages.message("", Path("/work/main")) == ("", "")  # no traceback: nothing to say


# ---- a real raised run, from the checkout and from a copy in a folder named tmp -----------------

@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same raising snippet run from the checkout and from a copy of its folder under
    `.../tmp/checkout/` (a folder named tmp, as a temporary clone would be)."""
    env = envs.ensure(envs.default())
    source = runner.SNIPPETS / RAISING
    copy = tmp_path_factory.mktemp("clone") / "tmp" / "checkout" / "snippets" / source.parent.name / source.name
    copy.parent.mkdir(parents=True)
    shutil.copy(source, copy)
    expectation = runner.expectations(source)[env.name]
    assert expectation.kind == "raises", "RAISING must name a snippet that raises in the default environment"
    try:
        return [runner.run(runner.Job(path, env, expectation), use_cache=False, mode="fork") for path in (source, copy)]
    finally:
        from tfdist_kb.proof import forkpool
        forkpool.stop_all()


@pytest.mark.matrix
def test_a_raised_run_records_its_four_devices_and_its_normalised_message(two_runs):
    here, elsewhere = two_runs
    assert here["outcome"] == "raised" and evidence.problems(here) == [], evidence.problems(here)
    assert here["replicas"] == 4 and len(set(here["ran_on"])) == 4, here["ran_on"]
    assert here["ran_on"] == witness.spanned(here["witness"])
    assert str(ROOT) not in here["message"] and 'File "snippets/TFD014/' in here["message"]
    assert here["headline"] == messages.headline(here["message"])
    # from a copy in a folder named tmp: the same record, field for compared field
    assert evidence.differences(here, elsewhere) == []


@pytest.mark.matrix
@pytest.mark.parametrize("field, edit", [
    ("message", lambda text: text.replace("not supported", "not allowed")),
    ("message", lambda text: text + "\nHint: wrap the call in strategy.scope()."),
    ("headline", lambda text: text.replace("PerReplica", "MirroredVariable")),
    ("ran_on", lambda devices: devices[:2]),
    ("ran_on", lambda devices: None),
])
def test_a_hand_edited_record_differs_from_a_re_run(two_runs, field, edit):
    """The evidence published a whole message (the "Whole message" fold) that no re-run compared."""
    here, again = two_runs
    edited = dict(here, **{field: edit(here[field])})
    found = evidence.differences(edited, again)
    assert [d.split(":")[0] for d in found] == [field], found


@pytest.mark.parametrize("change, problem", [
    ({"ran_on": None}, "not 4 replicas on 4 distinct devices"),
    ({"ran_on": []}, "not 4 replicas on 4 distinct devices"),
    ({"ran_on": ["CPU:0", "CPU:1", "CPU:2"]}, "not 4 replicas on 4 distinct devices"),
    ({"ran_on": ["CPU:0"] * 4}, "not 4 replicas on 4 distinct devices"),
    ({"replicas": 1}, "not 4 replicas"),
    ({"message": "Flattening a PerReplica...\nFile \"/home/me/kb/snippets/TFD014/x.py\", line 3"}, "not in the form"),
    ({"message": "x\n\t [[{{node cond/Placeholder_3}}]]"}, "not in the form"),
    ({"message": None}, "without its exception, message and headline"),
    ({"headline": None}, "without its exception, message and headline"),
    ({"headline": ""}, "without its exception, message and headline"),
    ({"exception": None}, "without its exception, message and headline"),
])
def test_a_record_that_does_not_prove_its_replicas_or_was_edited_is_not_evidence(change, problem):
    record = {"outcome": "raised", "exception": "ValueError", "headline": "Flattening a PerReplica...",
              "message": "in user code:\n\n    ValueError: Flattening a PerReplica...", "replicas": 4,
              "ran_on": ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]}
    assert evidence.problems(record) == []
    found = evidence.problems(dict(record, **change))
    assert any(problem in p for p in found), found
    assert evidence.problems(dict(record, outcome="timed-out", ran_on=[])), "a hang must name its devices too"
    assert evidence.problems(dict(record, message="", headline="")) == []  # `raise ValueError()` says nothing


@pytest.mark.parametrize("devices", [[], ["/job:localhost/replica:0/task:0/device:CPU:0"] * 4])
def test_the_runner_refuses_a_raised_run_without_four_devices(devices):
    seen = {"strategies": [{"class": "MirroredStrategy", "replicas": 4, "devices": devices}], "ran": {},
            "sessions": [], "runtime_devices": ["/device:CPU:%d" % i for i in range(4)]}
    job = runner.Job(runner.SNIPPETS / RAISING, envs.default(), expect.Expectation("raises", exception="ValueError"))
    with pytest.raises(runner.RunnerError, match="not evidence"):
        runner._proof(job, "raised", seen)


def test_every_committed_record_proves_its_replicas_and_holds_its_recorded_message():
    """The evidence alone shows every error reproduced on 4 replicas, each message as recorded."""
    bad = {f"{k[0]} on {k[1]}": found for k, r in evidence.load().items() if (found := evidence.problems(r))}
    assert not bad, f"{len(bad)} records are not evidence (re-record them with make matrix): {dict(list(bad.items())[:5])}"


# ---- pages render the stored fields, nothing else -----------------------------------------------

def test_the_outcome_box_shows_the_stored_message_and_the_devices(monkeypatch):
    env = envs.default().name
    record = {"snippet": f"snippets/{RAISING}", "env": env, "outcome": "raised", "exception": "ValueError",
              "headline": "the headline as stored", "message": "first line\n  File \"snippets/x.py\", line 1\nthe headline as stored",
              "replicas": 4, "ran_on": ["CPU:0", "CPU:1", "CPU:2", "CPU:3"], "tensorflow": "2.21.0", "keras": "3.15.1",
              "keras_package": "keras", "python": "3.11.7", "stdout": ""}
    monkeypatch.setattr(macros, "_record", lambda snippet, env_name, who="outcome": dict(record))
    box = macros.outcome(RAISING, env)
    assert "4 replicas on CPU:0, CPU:1, CPU:2, CPU:3" in box
    assert "ValueError: the headline as stored" in box
    assert macros._indent(record["message"], " " * 8) in box  # the whole message, exactly as stored (in its fold)
