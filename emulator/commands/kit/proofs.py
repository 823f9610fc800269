"""The proof of a solve, taken from the session as the solving line runs, for its completion code.

:func:`capture` reads the lines of the current lab run from the session's
journal (the run began at the progress's ``since`` history line; the line
running now is not in the journal yet) and hands them to
:func:`emulator.labs.codes.proof`, which keeps the lines that can change state.
A line counts as read-only when it is a plain pipeline of literal words whose
commands all say they are pure for those words (the same facts a restore's
replay reads), or a ``hint``/``solutions`` line, which the proof restates
first. When unsure, a line is kept: a longer code, never a wrong one.
"""

from __future__ import annotations

import shlex

from emulator import labs
from emulator.commands.kit.command import CommandTable, Context
from emulator.labs import codes

#: Characters that make a line more than a plain pipeline of literal words.
_SHELL_SYNTAX = set("$`;&<>(){}*?[]!~#\\\n")
#: Commands whose lines the proof restates first (hints shown, the procedure printed).
_RESTATED = ("hint", "solutions")


def read_only(line: str, commands: CommandTable) -> bool:
    """Whether replaying ``line`` may be left out of a proof (conservative: False when unsure)."""
    if _SHELL_SYNTAX & set(line):
        return False
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    if words and words[0] in _RESTATED and "|" not in words:
        return True
    stages: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            stages.append([])
        else:
            stages[-1].append(word)
    for stage in stages:
        command = commands.lookup(stage[0]) if stage and "=" not in stage[0] else None
        if command is None or not command.pure(stage[1:]):
            return False
    return True


def capture(ctx: Context, state: labs.Progress) -> tuple[codes.ProofEntry, ...]:
    """The proof of the lab run ``state`` as of the line running now (the solving line)."""
    session = ctx.session
    current = session.current.line if session.current is not None else ""
    run_lines = session.history_base + len(session.history) - state.since - 1
    journal = list(session.journal)
    earlier = journal[max(0, len(journal) - run_lines):] if run_lines > 0 else []
    return codes.proof([*earlier, (current, None)], lambda line: read_only(line, ctx.commands),
                       state.hints, state.solutions)
