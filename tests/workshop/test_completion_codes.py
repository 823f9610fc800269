"""Completion codes: a solve typed as a learner types it earns a code that `verify` replays and accepts;
a mistyped, forged, foreign-build or another student's code is refused with its reason."""

from __future__ import annotations

import pytest

from emulator import labs
from emulator.__main__ import main
from emulator.completion import verify
from emulator.labs import codes
from emulator.session import Session

SEEDS = (0, 1, 7)
LABS = [lab_id for lab_id in labs.known_labs() if not labs.get(lab_id).is_sandbox]


def solve(lab_id: str, seed: int, before: tuple[str, ...] = ()) -> tuple[Session, str]:
    """A session that typed ``before``, the lab's reference procedure and the right finding; the code printed."""
    session = Session(lab_id, seed)
    lab = labs.get(lab_id)
    truth = session.cluster.truth()
    for line in before:
        session.execute(line)
    for step in lab.solution:
        for line in step.run:
            session.execute(labs.substitute(line, truth))
    assert lab.check is not None
    out, status = session.execute("submit " + " ".join(f'{k}="{truth[k]}"' for k in lab.check.fields))
    assert status == 0, out
    lines = out.splitlines()
    assert lines[-2].startswith("Completion code"), out
    return session, lines[-1]


def change_one_character(code: str, index: int) -> str:
    body = code[len(codes.PREFIX):]
    char = body[index]
    other = codes.ALPHABET[(codes.ALPHABET.index(char) + 1) % 32]
    return codes.PREFIX + body[:index] + other + body[index + 1:]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", LABS)
def test_the_reference_solve_earns_a_code_that_verify_accepts(lab_id, seed, capsys):
    _, code = solve(lab_id, seed)
    assert len(code) < 600
    assert main(["verify", code]) == 0
    assert capsys.readouterr().out == f"OK lab={lab_id} seed={seed} student=- hints=0 solutions=no\n"


def test_hints_and_the_printed_procedure_show_in_the_verdict_even_if_asked_before_the_run():
    session, _ = solve("nvlink", 2, before=("hint", "hint", "lab start nvlink --seed 2", "solutions --show"))
    out, status = session.execute("completion --student 'Ana   Lima'")
    assert status == 0
    assert verify(out.strip()) == "OK lab=nvlink seed=2 student=Ana Lima hints=2 solutions=yes"


def test_the_student_comes_from_the_flag_or_STUDENT_and_completion_repeats_the_code():
    session, code = solve("storage", 1)
    assert session.execute("completion") == (code + "\n", 0)
    session.execute("export STUDENT=Bo")
    out, _ = session.execute("completion")
    assert verify(out.strip()).startswith("OK lab=storage seed=1 student=Bo ")


def test_elsewhere_completion_lists_every_solved_run_and_progress_lists_the_runs():
    session, code = solve("input-wait", 4)
    session.execute("lab start storage --seed 3")
    out, status = session.execute("completion")
    assert (out, status) == (f"input-wait (seed 4):\n{code}\n", 0)
    out, _ = session.execute("progress")
    assert out.splitlines()[1:] == ["input-wait       4  yes            1      0  -",
                                    "storage          3  no             0      0  -"]


def test_completion_before_any_solve_says_how_to_earn_one():
    session = Session("storage", 0)
    assert session.execute("completion") == (
        "completion: no lab solved on this terminal yet; a correct 'submit' earns a code\n", 1)


def test_the_code_survives_a_snapshot_and_restore():
    session, code = solve("late-rank", 3)
    restored = Session.restore(session.snapshot())
    assert restored.execute("completion") == (code + "\n", 0)


def test_a_code_reads_case_blind_with_spaces_and_the_look_alike_letters():
    _, code = solve("input-wait", 0)
    body = code[len(codes.PREFIX):]
    typed = "cl1-" + body.lower().replace("1", "l").replace("0", "o")
    assert verify(typed[:20] + "\n " + typed[20:]).startswith("OK ")


def test_any_one_changed_character_is_caught_by_the_checksum():
    _, code = solve("checkpointing", 0)
    for index in range(len(code) - len(codes.PREFIX)):
        assert verify(change_one_character(code, index)) == \
            "INVALID checksum mismatch: a character was changed, left out or added"


def test_a_cut_code_or_another_token_is_refused():
    _, code = solve("checkpointing", 0)
    assert verify(code[:-3]).startswith("INVALID ")
    assert verify("hello") == "INVALID not a completion code (they start with CL1-)"
    assert verify(code + "U") == "INVALID 'U' is not a code character: the code was mistyped"


def test_a_journal_that_does_not_solve_the_lab_is_refused():
    forged = codes.encode(codes.Completion(labs.build_id("nvlink"), "nvlink", 0, "Eve",
                                           (("submit node=node01 cause=nvlink-down", None),)))
    truth = Session("nvlink", 0).cluster.truth()
    assert truth["node"] != "node01"
    assert verify(forged) == "INVALID lab=nvlink seed=0: its lines do not solve the lab at this seed"


def test_a_friends_solve_replayed_at_another_seed_is_refused():
    _, code = solve("nvlink", 0)
    friend = codes.decode(code)
    other = next(seed for seed in range(1, 20)
                 if Session("nvlink", seed).cluster.truth()["node"] != Session("nvlink", 0).cluster.truth()["node"])
    moved = codes.encode(codes.Completion(friend.build, "nvlink", other, "Bo", friend.proof))
    assert verify(moved) == f"INVALID lab=nvlink seed={other}: its lines do not solve the lab at this seed"


def test_a_code_from_another_build_says_which_builds():
    _, code = solve("storage", 0)
    made = codes.decode(code)
    old = codes.encode(codes.Completion("0.0.9+0badc0de", made.lab, made.seed, "", made.proof))
    assert verify(old) == (f"INVALID lab=storage seed=0: made by emulator build 0.0.9+0badc0de; this is build "
                           f"{labs.build_id('storage')} (a code verifies on the build that made it: the same "
                           "version and lab file)")


def test_with_a_workshop_a_code_must_carry_its_students_seed(capsys):
    seed = labs.student_seed("GPU week", "Ana Lima")
    session, _ = solve("storage", seed)
    mine, _ = session.execute("completion --student 'Ana Lima'")
    theirs, _ = session.execute("completion --student Bo")
    assert main(["verify", "--workshop", "gpu  WEEK", mine.strip(), theirs.strip()]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"OK lab=storage seed={seed} student=Ana Lima hints=0 solutions=no",
        f"INVALID lab=storage seed={seed}: seed {seed} is not the seed of student 'Bo' in workshop 'gpu  WEEK' "
        f"({labs.student_seed('GPU week', 'Bo')})"]


def test_student_seeds_are_four_digit_fnv1a_values_the_page_computes_too():
    assert labs.student_seed("GPU week", "Ana Lima") == labs.student_seed(" gpu week", "ana   lima")
    assert (labs.student_seed("GPU week", "Ana Lima"), labs.student_seed("GPU week", "Bo")) == PINNED
    assert all(1000 <= labs.student_seed("w", f"s{n}") <= 9999 for n in range(200))


#: FNV-1a 32 of "gpu week\nana lima" and "gpu week\nbo", mod 9000, + 1000 (the page pins the same).
PINNED = (7536, 5040)


def test_a_proof_longer_than_any_solve_is_refused_before_it_is_replayed():
    build = labs.build_id("storage")
    forged = codes.encode(codes.Completion(build, "storage", 0, "", (10**12, ("submit cause=x", None))))
    assert verify(forged) == ("INVALID lab=storage seed=0: its proof has 1000000000001 lines, more than a solve "
                              "takes (2000)")
