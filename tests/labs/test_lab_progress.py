"""A lab's progress counts what the learner used: attempts, hints, the reference procedure, enumeration.

Typed through the shell as a learner would. The counts are shown on success
and by ``lab``, and kept on ``session.lab_progress`` for a completion record.
"""

from __future__ import annotations

from emulator import labs
from emulator.session import Session

LAB = "nvlink"
SEED = 1  # nvlink-down on node02


def finding(session: Session, node: str | None = None, cause: str | None = None) -> str:
    truth = session.cluster.truth()
    return f'submit node={node or truth["node"]} cause="{cause or truth["cause"]}"'


def test_success_shows_the_attempts_and_hints_and_lab_keeps_them():
    session = Session(LAB, SEED)
    session.execute("hint")
    session.execute(finding(session, node="node01"))
    session.execute(finding(session, cause="fabric manager down"))
    out, status = session.execute(finding(session, cause="GPU 1 lost two NVLinks"))
    assert status == 0
    assert "\nSolved in 3 attempts, 1 hint.\n" in out
    assert "Progress: solved in 3 attempts, 1 hint." in session.execute("lab")[0]
    progress = session.lab_progress
    assert progress is not None
    assert (progress.attempts, progress.hints, progress.solutions, progress.enumerated) == (3, 1, False, False)


def test_refused_findings_and_those_after_solving_are_not_attempts_and_later_hints_not_counted():
    session = Session(LAB, SEED)
    session.execute(finding(session, cause="a poltergeist"))
    session.execute("submit node=node02")
    session.execute(finding(session))
    session.execute("hint")
    out, status = session.execute(finding(session, node="node03"))
    assert status == 1 and out.startswith("Not yet: 1 of 2 parts")
    out, status = session.execute(finding(session))
    assert status == 0 and out.startswith(f"✓ Correct: {labs.get(LAB).title}. (Already solved: not counted again.)")
    assert "Solved in 1 attempt, 0 hints." in out


def test_a_loop_that_submits_many_findings_and_solves_is_recorded_as_enumeration():
    session = Session(LAB, SEED)
    loop = "for n in node01 node02 node03 node04; do for c in nvlink fabricmanager nccl; do " \
           "submit node=$n cause=$c; done; done"
    out, status = session.execute(loop)
    assert "Solved in 4 attempts, 0 hints. Recorded as solved by enumeration" in " ".join(out.split())
    lab = " ".join(session.execute("lab")[0].split())
    assert "Progress: solved in 4 attempts, 0 hints. Recorded as solved by enumeration: the line that " \
           "solved it submitted 12 findings." in lab
    assert session.lab_progress is not None and session.lab_progress.enumerated


def test_a_chain_of_submits_on_one_line_is_enumeration_past_three():
    assert labs.ENUMERATION_LIMIT == 3
    session = Session(LAB, SEED)
    wrong = [finding(session, node=n) for n in ("node01", "node03", "node04")]
    session.execute("; ".join(wrong[:2] + [finding(session)]))
    assert session.lab_progress is not None and not session.lab_progress.enumerated
    other = Session(LAB, SEED)
    other.execute("; ".join(wrong + [finding(other)]))
    assert other.lab_progress is not None and other.lab_progress.enumerated


def test_a_loop_that_resets_the_lab_before_each_finding_is_still_counted_and_enumeration():
    session = Session(LAB, SEED)
    out, _ = session.execute("for n in node01 node03 node04 node02; do lab reset > /dev/null; "
                             "submit node=$n cause=nvlink; done")
    assert "Solved in 4 attempts, 0 hints. Recorded as solved by enumeration" in " ".join(out.split())


def test_the_same_findings_typed_line_by_line_are_not_enumeration():
    session = Session(LAB, SEED)
    for node in ("node01", "node03", "node04", "node05"):
        session.execute(finding(session, node=node))
    out, _ = session.execute(finding(session))
    assert "Solved in 5 attempts, 0 hints.\n" in out
    assert session.lab_progress is not None and not session.lab_progress.enumerated


def test_solutions_asks_before_printing_and_the_success_says_it_was_printed():
    session = Session(LAB, SEED)
    out, status = session.execute("solutions")
    assert status == 0
    assert out.endswith("Type 'solutions --show' to print it.\n")
    assert "$ " not in out and "Reference procedure:" not in out
    assert session.lab_progress is not None and not session.lab_progress.solutions
    out, _ = session.execute("solutions --show")
    assert out.startswith(f"Reference procedure: {labs.get(LAB).title} ({LAB})")
    assert session.execute("solutions")[0] == out  # asked once
    assert "The reference procedure was printed." in " ".join(session.execute("lab")[0].split())
    out, _ = session.execute(finding(session))
    assert "Solved in 1 attempt, 0 hints, after printing the reference procedure." in out


def test_another_labs_procedure_printed_before_starting_it_is_recorded_in_that_lab():
    session = Session()
    out, _ = session.execute(f"solutions {LAB}")
    assert out.endswith(f"Type 'solutions {LAB} --show' to print it.\n")
    session.execute(f"solutions {LAB} --show")
    session.execute(f"lab start {LAB} --seed {SEED}")
    assert session.lab_progress is not None and session.lab_progress.solutions
    session.execute("lab start input-wait")
    assert session.lab_progress is not None and not session.lab_progress.solutions


def test_the_procedure_printed_after_solving_leaves_the_record_as_it_was():
    session = Session(LAB, SEED)
    session.execute(finding(session))
    session.execute("solutions --show")
    assert session.lab_progress is not None and not session.lab_progress.solutions
