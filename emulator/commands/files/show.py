"""cat and less: files printed to the screen."""

from __future__ import annotations

import argparse
import errno

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, join_lines, read_input, split_lines
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError


class Cat(CoreutilsErrors, Intermixed):
    name = "cat"
    filters_lines = True
    reads_only = True
    summary = "print files (-n: number lines)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--number", action="store_true", help="number all output lines")
        parser.add_argument("-A", "--show-all", action="store_true", help="show tabs as ^I and line ends as $")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files to print (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        number = 0
        for path in args.files or ["-"]:
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(exc.message("cat") + "\n")
                status = 1
                continue
            if args.show_all:
                text = "".join(line.replace("\t", "^I") + "$\n" for line in split_lines(text))
            if args.number:
                lines = []
                for line in split_lines(text):
                    number += 1
                    lines.append(f"{number:6d}\t{line}")
                text = join_lines(lines)
            ctx.out(text)
        return status


class Less(RawCommand):
    name = "less"
    summary = "page through a file (here: print it whole)"
    section = SECTION
    aliases = ("more",)

    def execute(self, ctx: Context) -> Outcome:
        paths = [w for w in ctx.argv[1:] if not w.startswith("-") or w == "-"]
        if not paths:
            if not ctx.stdin:
                raise ctx.fail("Missing filename (\"less --help\" for help)", 1)
            ctx.out(ctx.stdin)
            return 0
        status = 0
        for path in paths:
            try:
                ctx.out(read_input(ctx, path))
            except FsError as exc:
                if exc.errno == errno.EISDIR:
                    ctx.err(f"{path} is a directory\n")
                else:
                    ctx.err(f"{path}: {exc.strerror}\n")
                status = 1
        return status
