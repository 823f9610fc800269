"""A learner's progress in one lab run: hints, attempts, whether the reference procedure was shown, how it was solved.

The session holds one :class:`Progress` per lab and seed (``session.lab_runs``;
``session.lab_progress`` is the current one), kept through ``lab reset``, so a
reset gives neither a fresh count nor a fresh first attempt; the lab commands
update it. Nothing here reads a clock: a session's snapshot is the
journal of its lines, and a restore replays them, so the progress is rebuilt
by the same commands in the same order, counted once. The counts are what an
instructor's completion record would read: ``attempts`` and ``hints`` when the
lab was solved, ``solutions`` and ``enumerated``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: A line that submits more findings than this and solves the lab solved it by enumeration.
ENUMERATION_LIMIT = 3


def plural(count: int, word: str) -> str:
    """``1 hint``, ``3 attempts``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass
class Progress:
    """One lab run in one session."""

    lab: str
    seed: int
    #: Number of the history line where this run began (evidence counts from here).
    since: int = 0
    #: The highest hint shown (frozen once the lab is solved).
    hints: int = 0
    #: Findings judged before the lab was solved (refused ones, and any after solving, are not attempts).
    attempts: int = 0
    #: Whether the reference procedure of this lab was printed (``solutions --show``).
    solutions: bool = False
    solved: bool = False
    #: The history line of the latest ``submit``, and how many findings that line has submitted.
    line: int = -1
    line_findings: int = 0
    #: The history line that solved the lab (-1: not solved), and how many findings it submitted.
    solved_line: int = -1
    solved_line_findings: int = 0
    #: The lines that solved it, for its completion code (:mod:`emulator.labs.codes`); empty until solved.
    proof: tuple[tuple[str, int | None] | int, ...] = field(default=())
    #: The evidence the learner's own output showed: ``"STEP:PATTERN"`` (step from 0) → the line that showed it
    #: (:mod:`emulator.labs.objectives`).
    seen: dict[str, str] = field(default_factory=dict)

    @property
    def enumerated(self) -> bool:
        """Whether the line that solved the lab submitted more than :data:`ENUMERATION_LIMIT` findings."""
        return self.solved_line_findings > ENUMERATION_LIMIT

    def submitted(self, line: int) -> None:
        """Count one finding submitted by history line ``line`` (a loop or a chain of ``submit`` is one line)."""
        if line != self.line:
            self.line, self.line_findings = line, 0
        self.line_findings += 1
        if self.solved_line == line:
            self.solved_line_findings = self.line_findings

    def judged(self, correct: bool) -> None:
        """A finding was judged: an attempt while unsolved; the first correct one solves the lab."""
        if self.solved:
            return
        self.attempts += 1
        if correct:
            self.solved, self.solved_line, self.solved_line_findings = True, self.line, self.line_findings

    def summary(self) -> str:
        """``Solved in 3 attempts, 1 hint.``, and whether the reference procedure was printed or the answer enumerated."""
        return self._solved("Solved")

    def status(self, total_hints: int) -> str:
        """The ``Progress:`` line of ``lab``."""
        if self.solved:
            return "Progress: " + self._solved("solved")
        printed = " The reference procedure was printed." if self.solutions else ""
        return (f"Progress: {self.hints} of {total_hints} hints used, {plural(self.attempts, 'attempt')}, "
                f"not solved yet.{printed}")

    def _solved(self, word: str) -> str:
        text = f"{word} in {plural(self.attempts, 'attempt')}, {plural(self.hints, 'hint')}"
        if self.solutions:
            text += ", after printing the reference procedure"
        text += "."
        if self.enumerated:
            text += (f" Recorded as solved by enumeration: the line that solved it submitted "
                     f"{self.solved_line_findings} findings.")
        return text
