"""Verifying completion codes: each code's proof replayed on a fresh session of its lab and seed.

>>> verify("CL1-0")
'INVALID checksum mismatch: a character was changed, left out or added'

:func:`verify` gives the line ``python -m emulator verify`` prints for one
code, and the instructor page shows: ``OK lab=<id> seed=<n> student=<name>
hints=<k> solutions=<yes|no>``, or ``INVALID <reason>``. The hints and the
printed procedure are what the replay counted, not what the code claims.
Given a workshop, a code whose seed is not its student's seed
(:func:`emulator.labs.student_seed`) is refused too. The layout of a code and
the build rule are in :mod:`emulator.labs.codes`. An on-call shift's code (lab
``shift``) replays from the sandbox: its proof begins with ``shift start``,
and it is valid when the replay wins the shift of its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator import labs
from emulator.errors import LabError
from emulator.labs import codes
from emulator.session import STEP_LIMIT, Session

__all__ = ["Verdict", "verify", "verify_all"]

#: Lines a proof may replay (read-only counts included): a solve takes far fewer.
REPLAY_LIMIT = 2_000


@dataclass(frozen=True)
class Verdict:
    """One code's verdict: valid or not, the line to print, and what the code holds when it could be read."""

    ok: bool
    line: str
    lab: str = ""
    seed: int = -1
    student: str = ""
    #: What the replay counted (valid codes only): the hints shown, the reference procedure printed.
    hints: int = 0
    solutions: bool = False


def verify(code: str, workshop: str | None = None) -> str:
    """The verdict line of one code."""
    return check(code, workshop).line


def verify_all(codes_: list[str], workshop: str | None = None) -> tuple[list[str], bool]:
    """Every code's verdict line, and whether all were valid."""
    verdicts = [check(code, workshop) for code in codes_]
    return [v.line for v in verdicts], all(v.ok for v in verdicts)


def check(code: str, workshop: str | None = None) -> Verdict:
    """Read, place and replay one code."""
    try:
        completion = codes.decode(code)
    except codes.CodeError as exc:
        return Verdict(False, f"INVALID {exc}")
    lab, seed, student = completion.lab, completion.seed, completion.student

    def invalid(reason: str) -> Verdict:
        return Verdict(False, f"INVALID lab={lab} seed={seed}: {reason}", lab, seed, student)

    if lab != labs.SHIFT:
        try:
            known = labs.get(lab)
        except LabError:
            return invalid("no such lab in this build")
        if known.is_sandbox:
            return invalid("the sandbox has nothing to solve")
    build = labs.build_id(lab)
    if completion.build != build:
        return invalid(f"made by emulator build {completion.build}; this is build {build} "
                       "(a code verifies on the build that made it: the same version and lab file)")
    if workshop is not None:
        expected = labs.student_seed(workshop, student)
        if seed != expected:
            who = f"student {student!r}" if student else "a code without a student name"
            return invalid(f"seed {seed} is not the seed of {who} in workshop {workshop!r} ({expected})")
    count = sum(entry if isinstance(entry, int) else 1 for entry in completion.proof)
    if count > REPLAY_LIMIT:
        return invalid(f"its proof has {count} lines, more than a solve takes ({REPLAY_LIMIT})")
    try:
        state = _replay(lab, seed, codes.replay_lines(completion.proof))
    except Exception as exc:  # noqa: BLE001 - the last guard: a verdict line, never a traceback
        return invalid(f"its lines could not be replayed ({type(exc).__name__})")
    if state is None or not state.solved:
        return invalid("its lines do not solve the lab at this seed")
    shown = student or "-"
    return Verdict(True, f"OK lab={lab} seed={seed} student={shown} hints={state.hints} "
                         f"solutions={'yes' if state.solutions else 'no'}", lab, seed, student,
                   state.hints, state.solutions)


def _replay(lab: str, seed: int, lines: list[tuple[str, int | None]]) -> labs.Progress | None:
    """The progress a fresh session of ``lab`` at ``seed`` ends with after typing ``lines``."""
    # A shift's proof starts with its 'shift start', typed on a terminal in the sandbox.
    session = Session(None, 0) if lab == labs.SHIFT else Session(lab, seed)
    for line, stop in lines:
        run = session.run(line)
        if stop is not None and stop <= 0:
            run.interrupt()
        steps = 0
        while run.step() is not None:
            steps += 1
            if steps >= (STEP_LIMIT if stop is None else min(stop, STEP_LIMIT)):
                run.interrupt()
    return session.lab_runs.get((lab, seed))
