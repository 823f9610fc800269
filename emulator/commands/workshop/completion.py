"""``completion`` and ``progress``: the codes of this terminal's solves, and its labs at a glance.

``completion`` prints the code of the current lab run once it is solved (the
code ``submit`` printed), or, elsewhere, the code of every lab run this
terminal solved. ``--student NAME`` (or ``$STUDENT``) writes a name into the
code; ``python -m emulator verify CODE`` and the instructor page check it by
replaying its lines (:mod:`emulator.labs.codes`). ``progress`` lists each lab
run of this terminal: seed, solved or not, attempts, hints, the reference
procedure printed, solved by enumeration. ``progress export [PATH]`` and
``progress import [PATH]`` ask the front end, which holds the learner's files,
for the progress file (``session.request``): the CLI writes or reads PATH
(:mod:`emulator.progressfile`), the page downloads the file or opens a picker.
"""

from __future__ import annotations

import argparse

from emulator import labs
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.labs import codes

SECTION = "Labs"


def _runs(ctx: Context) -> list[labs.Progress]:
    """This terminal's lab runs (the sandbox left out), in the order they began."""
    return [state for (lab, _seed), state in ctx.session.lab_runs.items() if lab != labs.SANDBOX]


class CompletionCommand(ParsedCommand):
    name = "completion"
    directory = "/usr/local/bin"
    summary = "print the completion code of a solved lab, for your instructor"
    section = SECTION
    notes = ("A code holds the lab, the seed, your name if given and the lines that solved it;\n"
             "'python -m emulator verify CODE' or the instructor page replays them to check it.\n"
             "Hints used and a printed reference procedure show in the check.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--student", metavar="NAME", help="your name, written into the code (default: $STUDENT)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        student = codes.clean_name(args.student if args.student is not None else ctx.env.get("STUDENT", ""))
        if len(student) > codes.NAME_LIMIT:
            raise ctx.fail(f"completion: --student: longer than {codes.NAME_LIMIT} characters", 2)
        current = ctx.session.lab_progress
        if current is not None and current.solved and current.proof:
            ctx.outln(labs.completion_code(current, student))
            return 0
        solved = [state for state in _runs(ctx) if state.solved and state.proof]
        if not solved:
            raise ctx.fail("completion: no lab solved on this terminal yet; a correct 'submit' earns a code", 1)
        for state in solved:
            ctx.outln(f"{state.lab} (seed {state.seed}):")
            ctx.outln(labs.completion_code(state, student))
        return 0


class ProgressCommand(ParsedCommand):
    name = "progress"
    directory = "/usr/local/bin"
    summary = "list the labs run on this terminal: solved, attempts, hints"
    section = SECTION
    notes = ("'completion' prints the code of a solved lab. 'progress export' saves this terminal's\n"
             "labs to one file (a download on the site, PATH in the command-line emulator); 'progress\n"
             "import' merges such a file (a file picker on the site, PATH in the command line).")
    reads_only = True

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("action", nargs="?", choices=("export", "import"), metavar="export|import",
                            help="save the progress file, or merge one")
        parser.add_argument("path", nargs="?", metavar="PATH",
                            help="the file, in the command-line emulator (the site downloads or asks)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        if args.path is not None and not args.action:
            raise ctx.fail("progress: PATH goes with export or import", 2)
        if args.action:
            if not ctx.isatty:
                raise ctx.fail(f"progress {args.action}: the file is made by the terminal, not sent to a pipe "
                               f"or a file: type 'progress {args.action}' on its own", 1)
            ctx.session.request = (args.action, args.path or "")
            return 0
        runs = _runs(ctx)
        if not runs:
            ctx.outln("No lab run on this terminal yet. 'lab list' shows them; 'lab start ID' starts one.")
            return 0
        width = max(len("LAB"), *(len(state.lab) for state in runs))
        ctx.outln(f"{'LAB':{width}}  {'SEED':>6}  {'SOLVED':6}  {'ATTEMPTS':>8}  {'HINTS':>5}  NOTES")
        for state in runs:
            notes = [note for note, on in (("procedure printed", state.solutions),
                                           ("solved by enumeration", state.enumerated)) if on]
            solved = "yes" if state.solved else "no"
            ctx.outln(f"{state.lab:{width}}  {state.seed:>6}  {solved:6}  {state.attempts:>8}  {state.hints:>5}  "
                      f"{', '.join(notes) or '-'}".rstrip())
        return 0


def commands() -> list[Command]:
    return [CompletionCommand(), ProgressCommand()]
