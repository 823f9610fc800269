"""xargs: command lines built from standard input and run one after another."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, split_lines
from emulator.commands.kit.spec import ArgumentParser
from emulator.errors import CommandError
from emulator.limits import XARGS_LIMIT, limit_reached


def split_words(text: str) -> list[str]:
    """xargs's word splitting: blanks and newlines, honouring quotes and backslashes."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    have = False
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            else:
                current.append(c)
        elif c in "'\"":
            quote, have = c, True
        elif c == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            have = True
            i += 1
        elif c.isspace():
            if current or have:
                words.append("".join(current))
                current, have = [], False
        else:
            current.append(c)
        i += 1
    if quote:
        kind = "single" if quote == "'" else "double"
        raise CommandError(f"xargs: unmatched {kind} quote; by default quotes are special "
                    "to xargs unless you use the -0 option", 1)
    if current or have:
        words.append("".join(current))
    return words


class Xargs(CoreutilsErrors):
    name = "xargs"
    summary = "build and run command lines from standard input (-I REPLACE, -n MAX, -t)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-I", dest="replace", metavar="R", help="replace R in the command with each input line")
        parser.add_argument("-n", "--max-args", type=int, metavar="MAX", help="use at most MAX arguments per command line")
        parser.add_argument("-P", "--max-procs", type=int, metavar="MAX", help="accepted; commands run one after another")
        parser.add_argument("-t", "--verbose", action="store_true", help="print commands before executing them")
        parser.add_argument("-r", "--no-run-if-empty", action="store_true", help="if there are no arguments, do not run")
        parser.add_argument("-0", "--null", action="store_true", help="items are separated by a null character")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="command and initial arguments (default: echo)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        base = args.command or ["echo"]
        if args.null:
            items = [w for w in ctx.stdin.split("\0") if w]
        elif args.replace is not None:
            items = [line.strip() for line in split_lines(ctx.stdin) if line.strip()]
        else:
            items = split_words(ctx.stdin)
        if args.max_args is not None and args.max_args < 1:
            raise ctx.fail(f"xargs: value {args.max_args} for -n option should be >= 1", 1)
        if args.replace is not None:
            batches = [[word.replace(args.replace, item) for word in base] for item in items]
        else:
            size = args.max_args or max(1, len(items))
            batches = [base + items[i:i + size] for i in range(0, len(items), size)] or (
                [] if args.no_run_if_empty else [list(base)])
        status = 0
        for argv in batches[:XARGS_LIMIT]:
            if args.verbose:
                ctx.err(" ".join(argv) + "\n")
            result = ctx.run(argv)
            ctx.out(result.stdout)
            ctx.err(result.stderr)
            if result.status == 127:
                return 127
            if result.status:
                status = 123
        if len(batches) > XARGS_LIMIT:
            ctx.err(limit_reached(f"xargs: stopped after running {XARGS_LIMIT} commands") + "\n")
            return 1
        return status
