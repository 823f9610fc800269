"""Kept model answers never outlive the model they were read from: a change between two commands, or at a
timer during a command's pause, shows in what comes after it."""

from __future__ import annotations

from emulator.cluster import memo
from emulator.cluster.clock import COMMAND_COST_S
from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import run

UTILIZATION = "ssh node01 nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits"
SWEEP = "ssh node01 all_reduce_perf -b 1M -e 1G -f 4 -g 8"
BRAKE = ("gpu-power-brake", {"node": "node01"})


def _utilization(session: Session) -> list[int]:
    return [int(value) for value in run(session, UTILIZATION).split()]


def _rows(session: Session) -> list[str]:
    return [line for line in run(session, SWEEP).splitlines() if line.strip() and not line.startswith("#")]


def test_a_step_slowed_between_two_commands_shows_in_the_next_utilization():
    """The first nvidia-smi reads the healthy step (every GPU busy); the loader then starves the run in place
    (the same run object), and the next nvidia-smi shows the GPUs waiting for input, as a fresh read does."""
    session = Session("input-wait", 0, faults=False)
    assert min(_utilization(session)) >= 99
    apply_fault(session.cluster, "slow-input")
    assert max(_utilization(session)) < 99


def test_a_timer_during_a_sweep_shows_in_the_rows_after_it():
    """A power brake set by a clock timer after the first size of a sweep: that row reads the healthy GPUs,
    every later one the braked GPUs, row for row as sweeps run wholly before and after the brake."""
    healthy = _rows(Session(None, 0))
    braked_session = Session(None, 0)
    apply_fault(braked_session.cluster, *BRAKE)
    braked = _rows(braked_session)
    assert healthy[0] != braked[0] and healthy[-1] != braked[-1]
    session = Session(None, 0)
    clock = session.cluster.clock
    clock.schedule(clock.elapsed + COMMAND_COST_S + 0.01, lambda: apply_fault(session.cluster, *BRAKE))
    rows = _rows(session)
    assert rows[0] == healthy[0]
    assert rows[1:] == braked[1:]


def test_answers_are_kept_only_inside_a_scope_that_changes_nothing():
    computed: list[int] = []
    owner = object()

    def ask() -> int:
        return memo.kept("count", (owner,), None, lambda: computed.append(1) or len(computed))

    assert (ask(), ask()) == (1, 2)                    # outside any scope: computed each time
    with memo.scope(True):
        assert (ask(), ask()) == (3, 3)                # kept within the scope
        with memo.scope(False):
            assert (ask(), ask()) == (4, 5)            # a command that may change the model keeps nothing
        assert ask() == 6                              # and its closing forgot what the outer one kept
    with memo.scope(True):
        assert ask() == 7                              # the next command starts afresh
