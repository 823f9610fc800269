"""A lab's objectives: its reference steps as a checklist that ticks from what the learner's own output showed.

Each reference step names the evidence its output shows under the fault
(:meth:`Step.expected`, regular expressions). :func:`observe` reads the text a
line put on the learner's screen and records, in the lab run's
:class:`Progress`, each pattern it showed with the line of output that showed
it. A step's objective ticks once every pattern it expects for this truth was
seen, which is more than having run its tool: ``ibstatus`` on a healthy node
shows no degraded port. A step that expects no pattern for this truth (its
evidence belongs to another variant) ticks when its tools ran where the
procedure runs them (:func:`emulator.labs.evidence.missing_runs`).

The objective's text is the step's title, which names what to find out
("Read the negotiated rate of every rail port"), never what is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.labs.evidence import missing_runs, tool_runs
from emulator.labs.progress import Progress
from emulator.labs.schema import Lab

#: Characters of one line of output kept as what the learner saw.
EXCERPT_WIDTH = 72
#: Characters of one line's output searched for evidence (a longer output's end is left out).
EVIDENCE_SEARCHED = 200_000


@dataclass(frozen=True)
class Objective:
    """One reference step as the learner's checklist shows it."""

    text: str
    done: bool
    #: The lines of the learner's output that showed the step's evidence, in the step's order.
    saw: tuple[str, ...] = ()


def _excerpt(text: str, start: int) -> str:
    """The line of ``text`` holding index ``start``, its spaces squeezed, cut to :data:`EXCERPT_WIDTH`
    characters from a little before ``start`` (``…`` marks what was cut)."""
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    line = text[begin:end if end >= 0 else len(text)]
    head = ""
    if len(" ".join(line.split())) > EXCERPT_WIDTH and start - begin > 12:
        cut = line.rfind(" ", 0, start - begin - 8) + 1
        line, head = line[cut:], "…"
    squeezed = head + " ".join(line.split())
    return squeezed if len(squeezed) <= EXCERPT_WIDTH else squeezed[:EXCERPT_WIDTH - 1] + "…"


def observe(progress: Progress, lab: Lab, truth: dict[str, str], text: str) -> None:
    """Record in ``progress`` each expected pattern of the lab's steps that ``text`` (a line's output) shows."""
    if not text or lab.is_sandbox:
        return
    searched = text[:EVIDENCE_SEARCHED]
    for n, step in enumerate(lab.solution):
        for pattern in step.expected(truth):
            key = f"{n}:{pattern}"
            if key in progress.seen:
                continue
            try:
                found = re.search(pattern, searched, re.M)
            except re.error:
                continue
            if found:
                progress.seen[key] = _excerpt(searched, found.start())


def objectives(lab: Lab, truth: dict[str, str], progress: Progress | None, typed: list[str],
               home: str = "login01") -> list[Objective]:
    """The lab's steps as objectives, each ticked from ``progress.seen`` (or, without evidence, ``typed``)."""
    seen = progress.seen if progress is not None else {}
    ran: list[tuple[str | None, str]] | None = None  # read from ``typed`` only for a step without evidence
    listed = []
    for n, step in enumerate(lab.solution):
        expected = step.expected(truth)
        saw = tuple(seen[f"{n}:{p}"] for p in expected if f"{n}:{p}" in seen)
        if expected:
            done = len(saw) == len(expected)
        else:
            ran = tool_runs(typed, home) if ran is None else ran
            done = not missing_runs(step, truth, ran, home)
        listed.append(Objective(step.title, done, saw))
    return listed
