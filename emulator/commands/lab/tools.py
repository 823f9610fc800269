"""The lab commands: ``lab``, ``hint``, ``solutions`` and ``submit``.

A learner reads the lab's goal with ``lab``, asks for ``hint``s, and states a
finding with ``submit node=node07 port=mlx5_3 cause=link-rate``. The verdict
compares the finding with the model's truth (the faults applied to this
session's cluster), never with text typed or printed before. Progress lives
on the session, so replaying the session's journal restores it.
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass

from emulator import labs
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.errors import LabError

SECTION = "Labs"
WIDTH = 78


@dataclass
class Progress:
    """One lab run in one session."""

    lab: str
    seed: int
    #: Number of the history line where this run began (evidence counts from here).
    since: int = 0
    hints: int = 0
    submissions: int = 0
    solved: bool = False


def progress(ctx: Context) -> Progress:
    """This session's progress in its current lab, created on first use."""
    session = ctx.session
    lab_id = session.lab or labs.SANDBOX
    current = session.lab_progress
    if current is None or (current.lab, current.seed) != (lab_id, session.seed):
        current = Progress(lab_id, session.seed)
        session.lab_progress = current
    return current


def _wrap(text: str, indent: str = "") -> list[str]:
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    lines: list[str] = []
    for i, para in enumerate(paragraphs):
        if i:
            lines.append("")
        lines += textwrap.wrap(para, WIDTH, initial_indent=indent, subsequent_indent=indent) or [""]
    return lines


def _lab_list() -> list[str]:
    rows = [lab for lab in labs.all_labs().values() if not lab.is_sandbox]
    width = max(len(lab.id) for lab in rows) if rows else 10
    lines = [f"{'LAB':{width}}  {'DIFFICULTY':12}  TITLE"]
    lines += [f"{lab.id:{width}}  {lab.difficulty:12}  {lab.title}" for lab in rows]
    return lines


def _no_lab(ctx: Context, name: str) -> int:
    ctx.err(f"{name}: no lab is running on this terminal (healthy sandbox).\n"
            "Run 'lab list' to see the labs and 'lab start ID' to start one.\n")
    return 1


class LabCommand(ParsedCommand):
    name = "lab"
    directory = "/usr/local/bin"
    summary = "show the current lab, list the labs, start or reset one"
    section = SECTION
    notes = ("Examples:\n  lab                     the goal and your progress\n  lab list\n"
             "  lab start input-wait --seed 7\n  lab reset               start the current lab again")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("action", nargs="?", choices=("list", "start", "reset"), metavar="ACTION",
                            help="list, start ID, or reset")
        parser.add_argument("lab_id", nargs="?", metavar="ID", help="the lab to start")
        parser.add_argument("--seed", type=int, metavar="N", help="variant of the lab (default: 0)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        if args.action == "list":
            for line in _lab_list():
                ctx.outln(line)
            ctx.outln()
            ctx.outln("Start one with: lab start ID [--seed N]")
            return 0
        if args.action == "start":
            if not args.lab_id:
                raise ctx.fail("lab start: missing lab id; 'lab list' shows them", 2)
            return self._start(ctx, args.lab_id, 0 if args.seed is None else args.seed)
        if args.lab_id or args.seed is not None:
            raise ctx.fail(f"lab: unexpected argument; try 'lab start {args.lab_id or 'ID'} --seed N'", 2)
        if args.action == "reset":
            state = progress(ctx)
            return self._start(ctx, state.lab, state.seed)
        self._show(ctx)
        return 0

    def _start(self, ctx: Context, lab_id: str, seed: int) -> int:
        if seed < 0:
            raise ctx.fail("lab start: --seed must be 0 or more", 2)
        try:
            lab = labs.get(lab_id)
        except LabError:
            raise ctx.fail(f"lab start: unknown lab '{lab_id}'; 'lab list' shows them", 2) from None
        ctx.session.start_lab(None if lab.is_sandbox else lab.id, seed)
        state = progress(ctx)
        state.since = ctx.session.history_base + len(ctx.session.history)
        self._show(ctx)
        return 0

    def _show(self, ctx: Context) -> None:
        state = progress(ctx)
        lab = labs.get(state.lab)
        if lab.is_sandbox:
            ctx.outln(f"No lab is running: this is the {lab.title.lower()} (seed {state.seed}).")
            for line in _wrap(lab.scenario):
                ctx.outln(line)
            ctx.outln()
            ctx.outln("Run 'lab list' to see the labs and 'lab start ID' to start one.")
            return
        ctx.outln(f"Lab: {lab.title} ({lab.id}, seed {state.seed}, {lab.difficulty})")
        ctx.outln()
        for line in _wrap(lab.scenario):
            ctx.outln(line)
        ctx.outln()
        for line in _wrap("Goal: " + lab.goal):
            ctx.outln(line)
        ctx.outln()
        assert lab.check is not None
        ctx.outln(f"Answer with: {lab.submit_form()}")
        if lab.check.causes:
            ctx.outln(f"Causes: {', '.join(lab.check.causes)}")
        ctx.outln()
        status = "solved" if state.solved else "not solved yet"
        ctx.outln(f"Progress: {state.hints} of {len(lab.hints)} hints used, "
                  f"{state.submissions} finding{'s' if state.submissions != 1 else ''} submitted, {status}.")


class HintCommand(ParsedCommand):
    name = "hint"
    directory = "/usr/local/bin"
    summary = "show the next hint for the current lab"
    section = SECTION
    notes = "Hints go from a nudge to a near-answer. 'hint N' shows hint N again."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("number", nargs="?", type=int, metavar="N", help="show hint N")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        state = progress(ctx)
        lab = labs.get(state.lab)
        if lab.is_sandbox:
            return _no_lab(ctx, "hint")
        total = len(lab.hints)
        if args.number is None:
            if state.hints >= total:
                ctx.outln(f"No more hints ({total} of {total} used). 'solutions' prints the reference procedure.")
                return 0
            number = state.hints + 1
        else:
            number = args.number
            if not 1 <= number <= total:
                raise ctx.fail(f"hint: this lab has hints 1 to {total}", 2)
        state.hints = max(state.hints, number)
        ctx.outln(f"Hint {number} of {total}:")
        for line in _wrap(lab.hints[number - 1], "  "):
            ctx.outln(line)
        return 0


class SolutionsCommand(ParsedCommand):
    name = "solutions"
    directory = "/usr/local/bin"
    summary = "print a lab's reference procedure"
    section = SECTION
    notes = ("With no argument: the current lab's procedure (on the sandbox: the list of labs).\n"
             "<node>, <port>... stand for what an earlier step found.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("lab_id", nargs="?", metavar="ID", help="another lab's procedure")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        lab_id = args.lab_id or progress(ctx).lab
        try:
            lab = labs.get(lab_id)
        except LabError:
            raise ctx.fail(f"solutions: unknown lab '{lab_id}'; 'lab list' shows them", 2) from None
        if lab.is_sandbox:
            ctx.outln("Reference procedures exist for these labs:")
            ctx.outln()
            for line in _lab_list():
                ctx.outln(line)
            ctx.outln()
            ctx.outln("Print one with: solutions ID")
            return 0
        ctx.outln(f"Reference procedure: {lab.title} ({lab.id})")
        for n, step in enumerate(lab.solution, start=1):
            ctx.outln()
            ctx.outln(f"{n}. {step.title}")
            for cmd in step.run:
                ctx.outln(f"   $ {cmd}")
            for line in _wrap("Look for: " + step.look_for, "   "):
                ctx.outln(line)
            for line in _wrap("Record: " + step.record, "   "):
                ctx.outln(line)
        ctx.outln()
        ctx.outln(f"Finding: {lab.submit_form()}")
        return 0


class SubmitCommand(ParsedCommand):
    name = "submit"
    directory = "/usr/local/bin"
    summary = "state your finding for the current lab (submit node=node07 cause=...)"
    section = SECTION
    notes = "Each FIELD=VALUE is compared with the state of the cluster. 'lab' shows the fields a lab asks for."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("finding", nargs="*", metavar="FIELD=VALUE", help="one part of the finding")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        state = progress(ctx)
        lab = labs.get(state.lab)
        if lab.is_sandbox or lab.check is None:
            return _no_lab(ctx, "submit")
        check = lab.check
        finding: dict[str, str] = {}
        for item in args.finding:
            key, sep, value = item.partition("=")
            key = key.strip().lower()
            if not sep or not key or not value.strip():
                raise ctx.fail(f"submit: expected FIELD=VALUE, got '{item}'\nUsage: {lab.submit_form()}", 2)
            if key not in check.fields:
                raise ctx.fail(f"submit: this lab does not ask for '{key}'\nUsage: {lab.submit_form()}", 2)
            finding[key] = value.strip()
        missing = [f for f in check.fields if f not in finding]
        if missing:
            raise ctx.fail(f"submit: missing {', '.join(missing)}\nUsage: {lab.submit_form()}", 2)
        if "cause" in finding and labs.canonical_cause(check, finding["cause"]) is None:
            raise ctx.fail(f"submit: '{finding['cause']}' is not a cause this lab knows\n"
                           f"Causes: {', '.join(check.causes)}", 2)
        truth = ctx.cluster.truth()
        verdict = labs.judge(lab, truth, finding)
        state.submissions += 1
        if not verdict.correct:
            ctx.outln(f"Not yet: {len(verdict.wrong_fields)} of {len(check.fields)} parts do not match the cluster.")
            for line in verdict.lines:
                for wrapped in [line] if line.startswith("  ") else _wrap(line):
                    ctx.outln(wrapped)
            return 1
        state.solved = True
        ctx.outln(f"Correct: {lab.title} solved after {state.submissions} "
                  f"finding{'s' if state.submissions != 1 else ''} and {state.hints} hint{'s' if state.hints != 1 else ''}.")
        for line in verdict.lines:
            ctx.outln(line)
        ctx.outln()
        ctx.outln("Evidence the reference procedure uses, and whether you looked at it:")
        session = ctx.session
        typed = list(session.history)[max(0, state.since - session.history_base):]
        for line in labs.evidence_report(lab, truth, typed, ctx.cluster.login):
            ctx.outln(line)
        return 0


def commands() -> list[Command]:
    return [LabCommand(), HintCommand(), SolutionsCommand(), SubmitCommand()]
