"""What the lab commands share: this session's progress in its lab, paragraph wrapping, the list of labs."""

from __future__ import annotations

import textwrap
from typing import Any

from emulator import labs
from emulator.commands.kit.command import Context
from emulator.labs.progress import plural
from emulator.labs.shift import running

SECTION = "Labs"
#: The prose width when the terminal's is not known: 80 columns less a margin of two.
WIDTH = 78
#: The widest prose, however wide the terminal: longer lines read badly.
MAX_WIDTH = 100
#: The symbol of a solve, beside a word (a verdict, ``lab list``), never alone.
SOLVED_MARK = "✓"


def progress(ctx: Context) -> labs.Progress:
    """This session's progress in its current lab and seed, created on first use.

    One per lab and seed: ``lab reset`` restarts the cluster, not the count. A lab whose
    reference procedure this session printed (``solutions ID --show`` before ``lab start ID``)
    has that recorded unless it was solved before.
    """
    session = ctx.session
    key = (session.lab or labs.SANDBOX, session.seed)
    current = session.lab_runs.get(key)
    if current is None:
        current = session.lab_runs[key] = labs.Progress(*key)
    if key[0] in session.revealed and not current.solved:
        current.solutions = True
    return current


def history_line(ctx: Context) -> int:
    """The number of the history line running now (it is the latest one)."""
    session = ctx.session
    return int(session.history_base + len(session.history))


def width(ctx: Context) -> int:
    """The width prose is wrapped to: the terminal's ``COLUMNS`` (the environment's, else the shell's, else 80)
    less a margin of two, at least 20 and at most :data:`MAX_WIDTH`."""
    shell_vars = getattr(ctx.shell, "vars", {})
    value = ctx.env.get("COLUMNS") or (shell_vars.get("COLUMNS") if isinstance(shell_vars, dict) else None)
    try:
        columns = int(value) if value else WIDTH + 2
    except ValueError:
        columns = WIDTH + 2
    return max(20, min(columns - 2, MAX_WIDTH))


def wrap(text: str, indent: str = "", columns: int = WIDTH, hang: str | None = None) -> list[str]:
    """Paragraphs (separated by a blank line) wrapped to ``columns`` (:func:`width` gives the terminal's);
    ``hang`` indents the lines after a paragraph's first (``indent`` by default)."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    lines: list[str] = []
    for i, para in enumerate(paragraphs):
        if i:
            lines.append("")
        lines += textwrap.wrap(para, columns, initial_indent=indent,
                               subsequent_indent=indent if hang is None else hang,
                               break_long_words=False, break_on_hyphens=False) or [""]
    return lines


def lab_list(session: Any = None) -> list[str]:
    """``lab list``: every lab but the sandbox, with its difficulty and title; given the session, the labs
    this terminal's session solved are marked (``✓ solved, 1 hint``)."""
    rows = [lab for lab in labs.all_labs().values() if not lab.is_sandbox]
    width = max(len(lab.id) for lab in rows) if rows else 10
    solved = solves(session) if session is not None else {}
    lines = [f"{'LAB':{width}}  {'DIFFICULTY':12}  TITLE"]
    for lab in rows:
        mark = f"  {solved[lab.id]}" if lab.id in solved else ""
        lines.append(f"{lab.id:{width}}  {lab.difficulty:12}  {lab.title}{mark}")
    return lines


def solves(session: Any) -> dict[str, str]:
    """The labs this session or this browser solved (any seed): ``✓ solved, 1 hint``, the fewest hints of
    their solves."""
    best: dict[str, int] = dict(getattr(session, "browser_solves", {}))
    for (lab, _seed), state in session.lab_runs.items():
        if state.solved:
            best[lab] = min(best.get(lab, state.hints), state.hints)
    return {lab: f"{SOLVED_MARK} solved, {plural(hints, 'hint')}" for lab, hints in best.items()}


def no_lab(ctx: Context, name: str) -> int:
    """The error of a lab command on the sandbox, or on an on-call shift (whose findings go to ``oncall``)."""
    if running(ctx.session) is not None:
        ctx.err(f"{name}: an on-call shift is running on this terminal, not a lab: 'oncall' shows it,\n"
                "'oncall submit node=... cause=\"...\"' states a finding, 'oncall hint' gives a hint.\n")
        return 1
    ctx.err(f"{name}: no lab is running on this terminal (healthy sandbox).\n"
            "Run 'lab list' to see the labs and 'lab start ID' to start one.\n")
    return 1
