"""uniq: repeated adjacent lines reported, counted or omitted."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, join_lines, read_input, split_lines
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError


class Uniq(CoreutilsErrors, Intermixed):
    name = "uniq"
    summary = "report or omit repeated adjacent lines (-c -d -u -i)"
    section = SECTION
    usage_status = 1

    def pure(self, words: list[str]) -> bool:
        """``uniq [INPUT]`` reads; a second operand is a file it writes."""
        return sum(1 for w in words if not w.startswith("-") or w == "-") <= 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-c", "--count", action="store_true", help="prefix lines by the number of occurrences")
        parser.add_argument("-d", "--repeated", action="store_true", help="only print duplicate lines, one for each group")
        parser.add_argument("-u", "--unique", action="store_true", help="only print unique lines")
        parser.add_argument("-i", "--ignore-case", action="store_true", help="ignore differences in case when comparing")
        parser.add_argument("input", nargs="?", default="-", metavar="INPUT", help="input file (- or none: stdin)")
        parser.add_argument("output", nargs="?", metavar="OUTPUT", help="output file (none: stdout)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        try:
            lines = split_lines(read_input(ctx, args.input))
        except FsError as exc:
            raise ctx.fail(exc.message("uniq"), 1) from None
        groups: list[list[str]] = []
        for line in lines:
            key = line.lower() if args.ignore_case else line
            if groups and (groups[-1][0].lower() if args.ignore_case else groups[-1][0]) == key:
                groups[-1].append(line)
            else:
                groups.append([line])
        out = []
        for group in groups:
            if args.repeated and len(group) < 2 or args.unique and len(group) > 1:
                continue
            out.append(f"{len(group):7d} {group[0]}" if args.count else group[0])
        if args.output:
            try:
                ctx.fs.write(args.output, join_lines(out))
            except FsError as exc:
                raise ctx.fail(exc.message("uniq"), 1) from None
            return 0
        ctx.out(join_lines(out))
        return 0
