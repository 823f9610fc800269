"""Each reference procedure solves its lab, and shows nothing on the healthy twin.

For every lab and several seeds the procedure's commands are typed into a
Session as a learner would (``<node>``-style placeholders filled from the
state's truth). The evidence each step names must be visible in its output;
``submit`` with the truth passes, and every step of the procedure counts as
used; plausible wrong findings fail, and the first of them names the wrong
part. The same commands on the lab's cluster without its faults (the
healthy twin) must show none of that evidence.
"""

from __future__ import annotations

import re

import pytest

from emulator import labs
from emulator.session import Session

SEEDS = (0, 1, 2, 3, 4, 5)
LABS = [lab_id for lab_id in labs.known_labs() if not labs.get(lab_id).is_sandbox]


def healthy_twin(lab: labs.Lab, seed: int) -> Session:
    """A session on the lab's cluster with no fault applied."""
    return Session(lab.id, seed, faults=False)


def replay(session: Session, step: labs.Step, truth: dict[str, str]) -> str:
    """The output of the step's commands, each typed with the truth filled in."""
    outputs = []
    for line in step.run:
        out, _ = session.execute(labs.substitute(line, truth))
        assert "command not found" not in out and "internal error" not in out, out
        outputs.append(out)
    return "\n".join(outputs)


def right_finding(lab: labs.Lab, truth: dict[str, str]) -> dict[str, str]:
    assert lab.check is not None
    return {name: truth[name] for name in lab.check.fields}


def wrong_value(lab: labs.Lab, name: str, truth: dict[str, str]) -> str:
    """A plausible wrong value: a neighbour node, port, GPU or rank, another cause word."""
    assert lab.check is not None
    value = truth[name]
    if name == "cause":
        return next(c for c in lab.check.causes if c != value)
    if name in lab.check.synonyms:
        return next(word for word in lab.check.synonyms[name] if word != value)
    if value == "all":
        return "0"
    m = re.fullmatch(r"(.*?)(\d+)", value)
    assert m, f"no neighbour for {name}={value}"
    number = int(m.group(2))
    other = number - 1 if number > 1 else number + 1
    return f"{m.group(1)}{other:0{len(m.group(2))}d}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", LABS)
def test_the_reference_procedure_shows_the_evidence_and_solves_the_lab(lab_id, seed):
    lab = labs.get(lab_id)
    assert lab.check is not None
    session = Session(lab_id, seed)
    truth = session.cluster.truth()
    for name in lab.check.fields:
        assert name in truth, f"the fault's truth has no {name}: {truth}"
    if "cause" in lab.check.fields:
        assert truth["cause"] in lab.check.causes
    for n, step in enumerate(lab.solution, start=1):
        text = replay(session, step, truth)
        for pattern in step.expected(truth):
            assert re.search(pattern, text, re.M), f"step {n} ({step.title}): no /{pattern}/ in:\n{text}"
    finding = right_finding(lab, truth)
    for attempt, name in enumerate(lab.check.fields, start=1):
        wrong = dict(finding, **{name: wrong_value(lab, name, truth)})
        out, status = session.execute("submit " + " ".join(f"{k}={v}" for k, v in wrong.items()))
        assert status == 1 and out.startswith(f"Not yet (attempt {attempt}): 1 of "), out
        named = f"{name}={wrong[name]}: not what the cluster shows" in out
        # Only a first attempt (or a one-field finding) says which part is wrong.
        assert named == (attempt == 1 or len(lab.check.fields) == 1), out
    out, status = session.execute("submit " + " ".join(f"{k}={v}" for k, v in finding.items()))
    assert status == 0 and out.startswith("✓ Correct"), out
    attempts = len(lab.check.fields) + 1
    assert f"Solved in {attempts} attempts, 0 hints." in out
    audit = " ".join(out.split("(any route to the finding counts):\n", 1)[1].split())
    assert audit.count(": used.") == len(lab.solution), audit


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("lab_id", LABS)
def test_the_healthy_twin_shows_no_evidence_of_the_fault(lab_id, seed):
    lab = labs.get(lab_id)
    truth = labs.build(lab, seed).truth()
    session = healthy_twin(lab, seed)
    for n, step in enumerate(lab.solution, start=1):
        text = replay(session, step, truth)
        for pattern in step.expected(truth):
            assert not re.search(pattern, text, re.M), f"step {n}: /{pattern}/ also on the healthy twin:\n{text}"


@pytest.mark.parametrize("lab_id", LABS)
def test_the_replay_seeds_cover_every_fault_the_lab_can_pick(lab_id):
    lab = labs.get(lab_id)
    picked = {name for seed in SEEDS for name, _ in labs.fault_params(lab, seed)}
    assert picked == {n for f in lab.faults for n in f.names}
