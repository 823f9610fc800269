"""The lab commands ``lab``, ``hint`` and ``solutions`` (``submit`` is :mod:`emulator.commands.lab.submit`).

A learner reads the lab's goal with ``lab`` and asks for ``hint``s; neither
lists the causes, which the learner states in their own words. ``solutions``
asks once before it prints a reference procedure (``solutions --show``), and
the learner's progress in that lab records it. Progress lives on the session,
so replaying the session's journal restores it.
"""

from __future__ import annotations

import argparse

from emulator import labs
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.lab.shared import SECTION, lab_list, no_lab, progress, width, wrap
from emulator.errors import LabError
from emulator.labs.shift import running


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
            for line in lab_list(ctx.session):
                ctx.outln(line)
            ctx.outln()
            ctx.outln("✓ marks the labs solved in this browser, with the fewest hints a solve used.")
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
        if lab.is_sandbox and running(ctx.session) is not None:
            ctx.outln("No lab is running: this terminal is on an on-call shift. 'oncall' shows its incidents.")
            return
        if lab.is_sandbox:
            ctx.outln(f"No lab is running: this is the {lab.title.lower()} (seed {state.seed}).")
            for line in wrap(lab.scenario, columns=width(ctx)):
                ctx.outln(line)
            ctx.outln()
            ctx.outln("Run 'lab list' to see the labs and 'lab start ID' to start one.")
            return
        ctx.outln(f"Lab: {lab.title} ({lab.id}, seed {state.seed}, {lab.difficulty})")
        ctx.outln()
        for line in wrap(lab.scenario, columns=width(ctx)):
            ctx.outln(line)
        ctx.outln()
        for line in wrap("Goal: " + lab.goal, columns=width(ctx)):
            ctx.outln(line)
        ctx.outln()
        assert lab.check is not None
        ctx.outln(f"Answer with: {lab.submit_form()}")
        if "cause" in lab.check.fields:
            ctx.outln('State the cause in your own words; quote several: cause="what you saw".')
        ctx.outln()
        for line in wrap(state.status(len(lab.hints)), columns=width(ctx)):
            ctx.outln(line)


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
            return no_lab(ctx, "hint")
        total = len(lab.hints)
        if args.number is None:
            if state.hints >= total:
                ctx.outln(f"No more hints ({total} of {total} used). 'solutions' offers the reference procedure.")
                return 0
            number = state.hints + 1
        else:
            number = args.number
            if not 1 <= number <= total:
                raise ctx.fail(f"hint: this lab has hints 1 to {total}", 2)
        if not state.solved:
            state.hints = max(state.hints, number)
        ctx.outln(f"Hint {number} of {total}:")
        for line in wrap(lab.hints[number - 1], "  ", columns=width(ctx)):
            ctx.outln(line)
        return 0


class SolutionsCommand(ParsedCommand):
    name = "solutions"
    directory = "/usr/local/bin"
    summary = "print a lab's reference procedure (asks first)"
    section = SECTION
    notes = ("With no argument: the current lab's procedure (on the sandbox: the list of labs).\n"
             "It asks once; 'solutions --show' prints it, and your progress in that lab records it.\n"
             "<node>, <port>... stand for what an earlier step found.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("lab_id", nargs="?", metavar="ID", help="another lab's procedure")
        parser.add_argument("--show", action="store_true", help="print it (recorded in your progress in that lab)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        state = progress(ctx)
        lab_id = args.lab_id or state.lab
        try:
            lab = labs.get(lab_id)
        except LabError:
            raise ctx.fail(f"solutions: unknown lab '{lab_id}'; 'lab list' shows them", 2) from None
        if lab.is_sandbox:
            ctx.outln("Reference procedures exist for these labs:")
            ctx.outln()
            for line in lab_list():
                ctx.outln(line)
            ctx.outln()
            ctx.outln("Print one with: solutions ID")
            return 0
        revealed = ctx.session.revealed
        if not args.show and lab.id not in revealed:
            self._ask(ctx, lab, current=lab.id == state.lab)
            return 0
        revealed.add(lab.id)
        if lab.id == state.lab and not state.solved:
            state.solutions = True
        self._print(ctx, lab)
        return 0

    @staticmethod
    def _ask(ctx: Context, lab: labs.Lab, current: bool) -> None:
        where = "this lab" if current else "that lab"
        again = "solutions --show" if current else f"solutions {lab.id} --show"
        steps = len(lab.solution)
        for line in wrap(f"The reference procedure of {lab.id} has {steps} step{'s' if steps != 1 else ''}: "
                         "every command to run, what to look for and what to record. Printing it is recorded "
                         f"in your progress in {where}, and shown when you solve it.", columns=width(ctx)):
            ctx.outln(line)
        ctx.outln(f"Type '{again}' to print it.")

    @staticmethod
    def _print(ctx: Context, lab: labs.Lab) -> None:
        ctx.outln(f"Reference procedure: {lab.title} ({lab.id})")
        for n, step in enumerate(lab.solution, start=1):
            ctx.outln()
            ctx.outln(f"{n}. {step.title}")
            for cmd in step.run:
                ctx.outln(f"   $ {cmd}")
            for line in wrap("Look for: " + step.look_for, "   ", columns=width(ctx)):
                ctx.outln(line)
            for line in wrap("Record: " + step.record, "   ", columns=width(ctx)):
                ctx.outln(line)
        ctx.outln()
        ctx.outln(f"Finding: {lab.submit_form()}")


def commands() -> list[Command]:
    return [LabCommand(), HintCommand(), SolutionsCommand()]
