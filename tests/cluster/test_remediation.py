"""The rung of the remediation ladder a GPU's state calls for follows NVIDIA's Xid catalog.

The catalog's immediate action for each Xid the emulator raises (the project's
notes on facts, section 5): RESTART_APP (the GPU contained the error; no rung),
RESET_GPU (the reset rung), RESTART_BM (the reboot rung). The rung is read from
the state the fault left on the GPU, never from the Xid number, so a fault that
set the wrong state fails here.
"""

from __future__ import annotations

import pytest

from emulator.cluster import remediation
from emulator.cluster.faults import apply_fault
from emulator.session import Session

#: Xid → the catalog's immediate action, for the codes the emulator raises whose action is one of the three.
CATALOG = {13: "RESTART_APP", 31: "RESTART_APP", 64: "RESET_GPU", 95: "RESET_GPU",
           119: "RESET_GPU", 79: "RESTART_BM"}
RUNG = {"RESTART_APP": None, "RESET_GPU": "reset", "RESTART_BM": "reboot"}


@pytest.mark.parametrize("code", sorted(CATALOG))
def test_the_gpu_state_an_xid_leaves_calls_for_the_catalogs_action(code: int) -> None:
    session = Session(lab="sandbox", seed=0)
    truth = apply_fault(session.cluster, "xid", {"code": code}).truth
    gpu = session.cluster.node(truth["node"]).gpus[int(truth["gpu"])]
    rung = remediation.next_rung(gpu)
    assert (rung.key if rung else None) == RUNG[CATALOG[code]]


def test_a_dbe_leaves_a_row_remap_pending_that_a_reset_activates() -> None:
    session = Session(lab="sandbox", seed=0)
    truth = apply_fault(session.cluster, "ecc-dbe-remap", {}).truth
    gpu = session.cluster.node(truth["node"]).gpus[int(truth["gpu"])]
    assert gpu.remap_pending and remediation.next_rung(gpu) is remediation.RUNGS["reset"]


def test_a_contained_ecc_error_restarts_the_application_and_its_pending_remap_asks_for_a_reset() -> None:
    """Xid 94 is RESTART_APP (no reset needed to run again), but the row it recorded (Xid 63) is only
    remapped at the next GPU reset, so the ladder's rung is the reset and the advice says both."""
    session = Session(lab="sandbox", seed=0)
    truth = apply_fault(session.cluster, "xid", {"code": 94}).truth
    gpu = session.cluster.node(truth["node"]).gpus[int(truth["gpu"])]
    assert gpu.present and not gpu.reset_required and gpu.remap_pending
    assert gpu.ecc_volatile.dram_uncorrectable == gpu.remapped_uncorrectable == 1
    assert remediation.next_rung(gpu) is remediation.RUNGS["reset"]
    said = remediation.advice(gpu, truth["node"])
    assert "application can restart" in said and "nvidia-smi -r -i" in said


def test_every_question_leads_to_rungs_of_the_ladder() -> None:
    for question, answers in remediation.ANSWERS.items():
        assert remediation.RUNGS[question].kind == "ask"
        assert all(answer in remediation.RUNGS for answer in answers)
    assert remediation.RUNGS[remediation.AFTER_FIX].kind == "ask"
