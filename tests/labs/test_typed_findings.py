"""A cause is typed in the learner's own words and read against the phrases each lab file lists.

Every phrase of every lab solves the lab when its cause is the truth, typed
through the shell as a learner would; a phrase of another cause is judged
wrong; words no phrase knows are refused without counting an attempt.
(The schema's checks of the phrases are in ``test_lab_schema.py``.)
"""

from __future__ import annotations

import pytest

from emulator import labs
from emulator.session import Session

SEEDS = range(6)
CAUSE_LABS = [i for i in labs.known_labs() if labs.get(i).check is not None and labs.get(i).check.causes]


def seeds_by_cause(lab_id: str) -> dict[str, int]:
    """A seed for each cause the lab's faults can pick."""
    found: dict[str, int] = {}
    for seed in SEEDS:
        found.setdefault(labs.build(labs.get(lab_id), seed).truth()["cause"], seed)
    return found


def submit_line(lab: labs.Lab, truth: dict[str, str], cause: str) -> str:
    assert lab.check is not None
    parts = [f"{name}={truth[name]}" for name in lab.check.fields if name != "cause"]
    return "submit " + " ".join(parts) + f' cause="{cause}"'


@pytest.mark.parametrize("lab_id", CAUSE_LABS)
def test_every_phrase_of_the_true_cause_solves_the_lab(lab_id):
    lab = labs.get(lab_id)
    assert lab.check is not None
    for cause, seed in seeds_by_cause(lab_id).items():
        session = Session(lab_id, seed)
        truth = session.cluster.truth()
        for phrase in [cause, *lab.check.causes[cause]]:
            out, status = session.execute(submit_line(lab, truth, phrase))
            assert status == 0 and out.startswith("✓ Correct"), f"{lab_id}: {phrase!r}\n{out}"


@pytest.mark.parametrize("lab_id", CAUSE_LABS)
def test_a_phrase_of_another_cause_is_judged_wrong_and_counted(lab_id):
    lab = labs.get(lab_id)
    assert lab.check is not None
    cause, seed = next(iter(seeds_by_cause(lab_id).items()))
    session = Session(lab_id, seed)
    truth = session.cluster.truth()
    other = next(c for c in lab.check.causes if c != cause)
    phrase = lab.check.causes[other][-1] if lab.check.causes[other] else other
    out, status = session.execute(submit_line(lab, truth, phrase.upper()))
    assert status == 1 and out.startswith("Not yet (attempt 1)"), out
    assert f"(read as {other}): not what the cluster shows" in " ".join(out.split())


@pytest.mark.parametrize("lab_id", CAUSE_LABS)
def test_words_that_name_no_cause_are_refused_without_a_list_and_without_counting(lab_id):
    lab = labs.get(lab_id)
    session = Session(lab_id, 0)
    truth = session.cluster.truth()
    out, status = session.execute(submit_line(lab, truth, "gremlins in the machine room"))
    assert status == 2
    assert out == ('submit: cause="gremlins in the machine room": not a cause this cluster can show; '
                   "say what you saw\n")
    assert session.lab_progress is not None and session.lab_progress.attempts == 0


@pytest.mark.parametrize("typed", ["fabricmanager stopped", "fabric manager down", "nv-fabricmanager failed",
                                   "Fabric Manager is not running", "the FABRIC-MANAGER service isn't running",
                                   "nvidia-fabricmanager.service: failed"])
def test_an_operators_words_for_a_stopped_fabric_manager(typed):
    assert labs.canonical_cause(labs.get("nvlink").check, typed) == "fabricmanager-stopped"


def test_a_cause_may_run_on_unquoted_until_the_next_field():
    session = Session("nvlink", 0)
    truth = session.cluster.truth()
    assert truth["cause"] == "fabricmanager-stopped"
    out, status = session.execute(f"submit cause=fabric manager not running node={truth['node']}")
    assert status == 0 and out.startswith("✓ Correct"), out
    assert '  cause="fabric manager not running" (read as fabricmanager-stopped): correct' in out


def test_a_words_only_cause_line_is_not_taken_for_another_field():
    session = Session("nvlink", 1)
    out, status = session.execute("submit node07 cause=nvlink")
    assert status == 2 and out.startswith("submit: expected FIELD=VALUE, got 'node07'")


def test_another_field_with_a_vocabulary_takes_free_text_too():
    session = Session("tokens-batches-steps", 0)
    truth = session.cluster.truth()
    phrase = {"micro_batch_size": "the Micro-Batch was halved", "activation_checkpointing":
              "activations are recomputed"}[truth["setting"]]
    out, status = session.execute(f'submit setting="{phrase}"')
    assert status == 0 and out.startswith("✓ Correct"), out


@pytest.mark.parametrize(("typed", "words"), [
    ("NVLinks Stopped", ("nvlink", "stop")),
    ("nv-fabricmanager_failed", ("nv", "fabricmanager", "fail")),
    ("the link isn't running", ("link", "not", "run")),
    ("link flapping; errors rising", ("link", "flap", "error", "ris")),
    ("degraded / downgrade", ("degrad", "downgrad")),
    ("I/O", ("i", "o")),
    ("OST0003 is full on the GPUs, not the bus", ("ost", "0003", "full", "gpu", "not", "bus")),
])
def test_text_is_reduced_to_its_meaningful_words(typed, words):
    assert labs.words(typed) == words


@pytest.mark.parametrize(("typed", "found"), [
    ("fabric manager", ["fm"]),            # two typed words meet one phrase word written together
    ("fabricmanager", ["fm"]),            # one typed word meets a phrase of two
    ("manager fabric", ["fm"]),           # word order does not matter
    ("fabric-manager", ["fm"]),           # nor hyphens
    ("links DOWN on node07", ["flap"]),   # words no phrase knows are ignored
    ("rate and flap", ["flap", "rate"]),  # two causes equally: the caller refuses it
    ("rate of the link down", ["flap"]),  # the cause whose phrases cover more words wins
    ("gremlins", []),
])
def test_a_vocabulary_resolves_to_the_values_that_cover_most_words(typed, found):
    vocabulary = labs.Vocabulary.of({"fm": ["fabric manager"], "flap": ["link down"], "rate": []})
    assert sorted(vocabulary.resolve(typed)) == found
