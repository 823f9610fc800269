"""Every lab's brief claims only what its job's artefacts show: the faulted run against its healthy twin.

Each lab declares the symptom its brief claims (``[[symptoms]]``); here the
faulted lab and its healthy twin are typed into through the shell
(train.log, sacct, nccl-tests, nvidia-smi dmon) for several seeds, and the
claim must hold by the amount its word means (:mod:`emulator.labs.claims`).
With the fault switched off the same check must fail, or it proves nothing.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from emulator import labs
from emulator.session import Session
from tests.labs.symptoms import problems

SEEDS = (0, 1, 2, 3)
LABS = [lab_id for lab_id in labs.known_labs() if not labs.get(lab_id).is_sandbox]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", LABS)
def test_the_job_shows_the_symptom_the_brief_claims(lab_id, seed):
    lab = labs.get(lab_id)
    assert lab.symptoms, f"{lab_id} declares no symptom"
    found = problems(lab, Session(lab_id, seed), Session(lab_id, seed, faults=False))
    assert not found, "\n".join(found)


#: Labs whose brief says the job does not feel the fault: their procedure's evidence, which the
#: replay test holds absent on the healthy twin, is what tells the two apart.
UNFELT = [lab_id for lab_id in LABS if all(s.claim == "unchanged" for s in labs.get(lab_id).symptoms)]


@pytest.mark.parametrize("lab_id", [lab_id for lab_id in LABS if lab_id not in UNFELT])
def test_the_symptom_check_fails_when_the_fault_is_switched_off(lab_id):
    lab = labs.get(lab_id)
    found = problems(lab, Session(lab_id, 0, faults=False), Session(lab_id, 0, faults=False))
    assert found, f"{lab_id}: its symptoms hold on a cluster without its fault"


@pytest.mark.parametrize("lab_id", UNFELT)
def test_a_lab_whose_job_does_not_feel_its_fault_has_evidence_to_tell_it(lab_id):
    lab = labs.get(lab_id)
    assert any(step.evidence for step in lab.solution), f"{lab_id}: nothing tells the fault from the healthy twin"


def test_a_claim_the_artefacts_contradict_is_reported():
    lab = labs.get("fabric-triage")
    bold = labs.Symptom("step-time", "far-slower", "far slower")
    found = problems(replace(lab, symptoms=[bold]), Session("fabric-triage", 0),
                     Session("fabric-triage", 0, faults=False))
    assert found and "not in [1.5, inf]" in found[0]


@pytest.mark.parametrize(("says", "wrong"), [
    ("all ranks stop for about 30 s at every save", "not about 30 s"),
    ("all ranks stop for longer than three steps take", "not longer than three steps"),
])
def test_a_save_pause_the_log_contradicts_is_reported(says: str, wrong: str) -> None:
    lab = labs.get("checkpointing")
    found = problems(replace(lab, symptoms=[labs.Symptom("save-pause", "long", says)]),
                     Session("checkpointing", 0), Session("checkpointing", 0, faults=False))
    assert found and wrong in found[0]
