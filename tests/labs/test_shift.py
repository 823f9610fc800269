"""The on-call shift: an expert who follows each incident's reference procedure wins it, and its code verifies;
a red herring's lure is a wrong finding, counted; GPU-hours lost grow with the simulated clock."""

from __future__ import annotations

import dataclasses
import re

import pytest

from emulator import labs
from emulator.completion import verify
from emulator.labs import codes, shift
from emulator.session import Session
from tests.support import run

SEEDS = range(6)


def started(seed: int) -> tuple[Session, shift.ShiftRun]:
    session = Session()
    run(session, f"oncall start --seed {seed}")
    state = session.lab_runs[(shift.SHIFT, seed)]
    assert isinstance(state, shift.ShiftRun)
    return session, state


def finding(incident: shift.Incident) -> str:
    return " ".join(f'{k}="{incident.truth[k]}"' for k in shift.fields_of(incident))


def adapted(step: labs.Step, incident: shift.Incident) -> list[str]:
    """The step's lines for this incident: its values filled in, and a per-node check that names the lab's
    job nodes (node01...) run on the ticket's node too, as an on-call engineer would."""
    lines = [labs.substitute(line, incident.truth) for line in step.run]
    if not any(incident.node in line for line in lines):
        lines += [line.replace("node01", incident.node) for line in lines if "node01" in line]
    return lines


def lost(session: Session) -> float:
    match = re.search(r"GPU-hours lost so far: ([\d.]+)", run(session, "oncall"))
    assert match is not None
    return float(match.group(1))


@pytest.mark.parametrize("seed", SEEDS)
def test_an_expert_following_each_reference_procedure_wins_the_shift_and_its_code_verifies(seed):
    session, state = started(seed)
    assert len({i.node for i in state.incidents} | {state.herring["node"]}) == shift.INCIDENTS + 1
    for incident in state.incidents:
        lab = labs.get(incident.lab)
        for step in lab.solution:
            shown = "".join(session.execute(line)[0] for line in adapted(step, incident))
            assert "command not found" not in shown and "internal error" not in shown, shown
            for pattern in step.expected(incident.truth):
                assert re.search(pattern, shown, re.M), (incident.lab, step.title, pattern)
        out = run(session, f"oncall submit {finding(incident)}")
        assert "resolved" in out, out
    out = run(session, "oncall end")
    assert f"Score: {shift.INCIDENTS} of {shift.INCIDENTS} incidents found" in out and "0 wrong findings" in out
    assert verify(out.splitlines()[-1]) == f"OK lab=shift seed={seed} student=- hints=0 solutions=no"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_red_herrings_lure_is_a_wrong_finding_and_is_counted(seed):
    session, state = started(seed)
    lure = " ".join(f'{k}="{v}"' for k, v in state.herring.items() if k in shift.FIELDS and v)
    out, status = session.execute(f"oncall submit {lure}")
    assert status == 1 and "Wrong finding (1 wrong finding this shift)" in out, out
    assert "3 of 3 incidents open, 1 wrong finding" in run(session, "oncall")


def test_a_wrong_cause_on_an_incidents_node_is_wrong_and_an_unreadable_one_is_refused():
    session, state = started(0)
    incident = state.incidents[0]
    out, status = session.execute(f'oncall submit node={incident.node} cause="bad luck"')
    assert status == 2 and "not a cause" in out
    other = next(k for k in ("thermal", "link-rate", "kernel-panic") if k != incident.truth["cause"])
    out, status = session.execute(f"oncall submit node={incident.node} cause={other}")
    assert status == 1 and "1 wrong finding" in out


@pytest.mark.parametrize(("line", "error"), [
    ("oncall submit node=node01", "oncall submit: missing cause"),
    ("oncall submit node=node01 node=node02 cause=thermal", "oncall submit: node given twice"),
    ("oncall submit node= cause=thermal", "oncall submit: expected FIELD=VALUE, got 'node='"),
    ("oncall submit colour=red", "oncall submit: expected one of node, port, gpu, cause=VALUE, got 'colour=red'"),
    ("oncall submit node07", "oncall submit: expected one of node, port, gpu, cause=VALUE, got 'node07'"),
])
def test_a_finding_that_is_not_one_is_refused_with_the_usage_and_counts_nothing(line: str, error: str) -> None:
    session, state = started(0)
    out, status = session.execute(line)
    assert status == 2 and error in out and "Usage: oncall submit node=<node>" in out, out
    assert state.wrong == 0 and state.attempts == 0


def test_words_after_the_cause_continue_it() -> None:
    session, state = started(0)
    incident = state.incidents[0]
    out, status = session.execute(f"oncall submit node={incident.node} cause=bad luck today")
    assert status == 2 and 'cause="bad luck today": not a cause' in out, out


def test_gpu_hours_lost_grow_with_the_clock_and_stop_when_an_incident_is_found():
    session, state = started(1)
    before = lost(session)
    run(session, "sleep 3600")
    after = lost(session)
    gpus = sum(i.gpus for i in state.incidents)
    assert after - before == pytest.approx(gpus, abs=0.1)
    run(session, f"oncall submit {finding(state.incidents[0])}")
    run(session, "sleep 3600")
    assert lost(session) - after == pytest.approx(gpus - state.incidents[0].gpus, abs=0.1)


def test_the_alerts_give_symptoms_never_causes():
    for seed in SEEDS:
        session = Session()
        out = run(session, f"oncall start --seed {seed}")
        alerts = out.split("Alerts and tickets:")[1].split("\n\n")[0].lower()
        state = session.lab_runs[(shift.SHIFT, seed)]
        for incident in state.incidents:
            assert incident.node in alerts
            assert incident.truth["cause"].replace("-", " ") not in alerts.replace("-", " ")


def test_a_shift_ended_early_has_no_code_and_a_won_one_gives_its_code_to_completion():
    session, _ = started(2)
    assert "No completion code" in run(session, "oncall end")
    out, status = session.execute("oncall submit node=node01 cause=thermal")
    assert status == 1 and "has ended" in out
    session, state = started(2)
    for incident in state.incidents:
        run(session, f"oncall submit {finding(incident)}")
    code = run(session, "oncall end").splitlines()[-1]
    assert verify(code).startswith("OK lab=shift seed=2")
    assert run(session, "completion").splitlines()[-1] == code


def test_the_lab_commands_point_to_oncall_during_a_shift_and_lab_start_leaves_it():
    session, _ = started(4)
    out, status = session.execute('submit node=node01 cause="link rate"')
    assert status == 1 and "an on-call shift is running" in out and "oncall submit" in out
    assert "on-call shift" in run(session, "lab")
    run(session, "lab start nvlink")
    out, status = session.execute("oncall")
    assert status == 1 and "no on-call shift on this terminal" in out


def test_a_reference_procedure_printed_during_the_shift_shows_in_the_score_and_the_verdict():
    session, state = started(5)
    run(session, f"solutions {state.incidents[0].lab} --show")
    for incident in state.incidents:
        run(session, f"oncall submit {finding(incident)}")
    run(session, "oncall hint")
    out = run(session, "oncall end")
    assert "after printing a reference procedure" in out
    assert verify(out.splitlines()[-1]) == "OK lab=shift seed=5 student=- hints=0 solutions=yes"


def test_a_saved_terminal_on_a_shift_restores_to_the_same_board():
    session, state = started(3)
    run(session, f"oncall submit {finding(state.incidents[1])}")
    session.execute("oncall submit node=node01 cause=thermal")
    run(session, "sleep 900")
    restored = Session.restore(session.snapshot())
    assert run(restored, "oncall") == run(session, "oncall")


def test_a_shift_code_whose_lines_do_not_win_that_seeds_shift_is_refused():
    session, state = started(3)
    for incident in state.incidents:
        run(session, f"oncall submit {finding(incident)}")
    code = run(session, "oncall end").splitlines()[-1]
    won = codes.decode(code)
    assert won.proof[0] == ("oncall start --seed 3", None)
    forged = codes.encode(dataclasses.replace(won, seed=4))
    assert verify(forged) == "INVALID lab=shift seed=4: its lines do not solve the lab at this seed"
    unwon = codes.encode(dataclasses.replace(won, proof=(won.proof[0], won.proof[-1])))
    assert verify(unwon) == "INVALID lab=shift seed=3: its lines do not solve the lab at this seed"


def test_starting_a_shift_again_returns_to_it_as_it_was():
    session, state = started(2)
    session.execute("oncall submit node=node05 cause=thermal")
    run(session, f"oncall submit {finding(state.incidents[0])}")
    run(session, "sleep 1800")
    before = lost(session)
    run(session, "lab start nvlink")
    out = run(session, "oncall start --seed 2")
    assert out.startswith("Back on the shift of seed 2") and "2 of 3 incidents open, 1 wrong finding" in out
    assert "Simulated time on shift: 00:30:" in out and before < lost(session) < before + 0.1
    for incident in state.incidents[1:]:
        run(session, f"oncall submit {finding(incident)}")
    out = run(session, "oncall end")
    assert "1 wrong finding" in out and "Shift over. Score: 3 of 3" in out
    assert verify(out.splitlines()[-1]) == "OK lab=shift seed=2 student=- hints=0 solutions=no"
