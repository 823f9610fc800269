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
from emulator.commands import registry
from emulator.labs.placeholders import PLACEHOLDER
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


#: Families that gather no evidence: the shell's plumbing and the lab's own commands. Reading a
#: file and filtering its text are one family: the job's own artefacts.
PLUMBING = {"basics", "help", "lab"}
SAME_FAMILY = {"text": "files", "awk": "files"}


def _families() -> dict[str, str]:
    """Command name (and alias) -> its family, as the command registry records it."""
    out = {}
    for entry in registry.index():
        for name in (entry["name"], *entry["aliases"]):
            out[name] = entry["family"]
    return out


def procedure_tools(lab: labs.Lab) -> list[tuple[str | None, str, str]]:
    """(host, tool, line) of every command the reference procedure runs, inside quoted ssh commands too."""
    families = _families()
    found: list[tuple[str | None, str, str]] = []
    for step in lab.solution:
        for line in step.run:
            pending = [(None, line)]
            while pending:
                home, text = pending.pop()
                for host, tool in labs.tool_runs([text], home or "login01"):
                    if tool not in families and " " in tool:
                        pending.append((host, tool))
                    else:
                        found.append((host, tool, line))
    return found


def tool_families(lab: labs.Lab) -> set[str]:
    families = _families()
    named = {families.get(tool, tool) for _, tool, _ in procedure_tools(lab)}
    return {SAME_FAMILY.get(f, f) for f in named} - PLUMBING


def correlates(lab: labs.Lab) -> bool:
    """Whether the procedure joins evidence: one tool on two hosts or across a launcher's nodes (a join
    across hosts, a healthy peer), or one command line run twice (a delta over time)."""
    hosts: dict[str, set[str | None]] = {}
    lines = [line for step in lab.solution for line in step.run]
    for host, tool, _ in procedure_tools(lab):
        hosts.setdefault(tool, set()).add(host)
    across = any(len(h) > 1 or None in h for tool, h in hosts.items() if _families().get(tool) not in PLUMBING)
    return across or len(set(lines)) < len(lines)


@pytest.mark.parametrize("lab_id", [lab_id for lab_id in LABS if labs.get(lab_id).difficulty == "advanced"])
def test_an_advanced_lab_needs_two_tool_families_and_a_correlation(lab_id):
    lab = labs.get(lab_id)
    assert len(tool_families(lab)) >= 2, f"{lab_id}: evidence from {sorted(tool_families(lab))} only"
    assert correlates(lab), f"{lab_id}: no step joins hosts, compares with a peer or takes a delta"


def test_the_depth_measure_tells_a_shallow_procedure():
    shallow = labs.get("tokens-batches-steps")
    assert tool_families(shallow) == {"files"} and not correlates(shallow)
    deep = labs.get("fabric-triage")
    assert tool_families(deep) == {"fabric", "system"} and correlates(deep)


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("lab_id", [lab_id for lab_id in LABS if labs.get(lab_id).decoys])
def test_the_reference_procedure_tells_each_decoy_from_the_fault(lab_id, seed):
    """A decoy's lure is judged wrong, and the procedure's steps aimed at the lure's place show none of
    the evidence the lure's cause would leave."""
    lab = labs.get(lab_id)
    assert lab.check is not None
    session = Session(lab_id, seed)
    truth = session.cluster.truth()
    for lure in labs.lures(lab, seed):
        finding = {name: lure.get(name, truth[name]) for name in lab.check.fields}
        assert finding != right_finding(lab, truth), f"the lure {lure} is the fault"
        out, status = session.execute("submit " + " ".join(f'{k}="{v}"' for k, v in finding.items()))
        assert status == 1 and out.startswith("Not yet"), out
        if set(lure) - {"cause"}:       # a place: replay the steps aimed at it
            aimed = {**truth, **lure}
            if "cause" in lab.check.fields:
                cause = lab.check.vocabularies["cause"].resolve(lure["cause"])
                assert len(cause) == 1, f"the lure's cause {lure['cause']!r} reads as {cause}"
                aimed["cause"] = cause[0]
            else:
                aimed["cause"] = truth.get("cause", "")
            for n, step in enumerate(lab.solution, start=1):
                named = {m.group(1) for text in [*step.run, *(e.pattern for e in step.evidence)]
                         for m in PLACEHOLDER.finditer(text)}
                if not named & (set(lure) - {"cause"}):     # the step does not look at the lure's place
                    continue
                text = replay(session, step, aimed)
                for pattern in step.expected(aimed):
                    assert not re.search(pattern, text, re.M), f"step {n} shows /{pattern}/ at the lure {lure}"


def test_a_decoy_that_kept_growing_would_show_as_the_fault():
    """The decoy check can fail: were the stale counter live, the delta step would show it."""
    lab = labs.get("fabric-triage")
    session = Session("fabric-triage", 1)
    lure = labs.lures(lab, 1)[1]
    node = session.cluster.node(lure["node"])
    assert node is not None
    next(nic for nic in node.nics if nic.name == lure["port"]).counter_rates["SymbolErrorCounter"] = 5.0
    aimed = dict(session.cluster.truth(), **lure)
    delta = next(step for step in lab.solution if "perfquery -x -R" in " ".join(step.run))
    assert any(re.search(p, replay(session, delta, aimed), re.M) for p in delta.expected(aimed))
