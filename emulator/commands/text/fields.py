"""cut, paste and column: fields picked out of lines, files joined line by line, and tables aligned."""

from __future__ import annotations

import argparse
import re

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import (
    SECTION,
    CoreutilsErrors,
    Intermixed,
    columns,
    join_lines,
    read_input,
    split_lines,
)
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.text.tr import tr_set
from emulator.errors import CommandError
from emulator.vfs import FsError


def _ranges(spec: str, prog: str) -> list[tuple[int, int]]:
    ranges = []
    for part in spec.split(","):
        match = re.fullmatch(r"(\d*)(-?)(\d*)", part.strip())
        if not match or not (match.group(1) or match.group(3)):
            raise CommandError(f"{prog}: invalid field range" if part else f"{prog}: invalid range with no endpoint: -", 1)
        lo = int(match.group(1)) if match.group(1) else 1
        hi = int(match.group(3)) if match.group(3) else (10 ** 9 if match.group(2) else lo)
        if lo == 0 or hi == 0:
            raise CommandError(f"{prog}: fields and positions are numbered from 1\nTry '{prog} --help' for more information.", 1)
        if hi < lo:
            raise CommandError(f"{prog}: invalid decreasing range\nTry '{prog} --help' for more information.", 1)
        ranges.append((lo, hi))
    return ranges


def _selected(index: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= index <= hi for lo, hi in ranges)


class Cut(CoreutilsErrors, Intermixed):
    name = "cut"
    filters_lines = True
    reads_only = True
    summary = "print selected fields or characters of each line (-d -f -c -s)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-b", "--bytes", metavar="LIST", help="select only these bytes")
        parser.add_argument("-c", "--characters", metavar="LIST", help="select only these characters")
        parser.add_argument("-f", "--fields", metavar="LIST", help="select only these fields")
        parser.add_argument("-d", "--delimiter", metavar="DELIM", help="use DELIM instead of TAB for field delimiter")
        parser.add_argument("-s", "--only-delimited", action="store_true", help="do not print lines not containing delimiters")
        parser.add_argument("--output-delimiter", metavar="STRING", help="use STRING as the output delimiter")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        lists = [x for x in (args.bytes, args.characters, args.fields) if x is not None]
        if not lists:
            raise ctx.fail("cut: you must specify a list of bytes, characters, or fields\n"
                           "Try 'cut --help' for more information.", 1)
        if len(lists) > 1:
            raise ctx.fail("cut: only one type of list may be specified\nTry 'cut --help' for more information.", 1)
        if args.delimiter is not None and args.fields is None:
            raise ctx.fail("cut: an input delimiter may be specified only when operating on fields\n"
                           "Try 'cut --help' for more information.", 1)
        delim = "\t" if args.delimiter is None else args.delimiter
        if len(delim) != 1:
            raise ctx.fail("cut: the delimiter must be a single character\nTry 'cut --help' for more information.", 1)
        ranges = _ranges(lists[0], "cut")
        status = 0
        out: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines = split_lines(read_input(ctx, path))
            except FsError as exc:
                ctx.err(exc.message("cut") + "\n")
                status = 1
                continue
            for line in lines:
                if args.fields is None:
                    out.append("".join(ch for i, ch in enumerate(line, 1) if _selected(i, ranges)))
                elif delim not in line:
                    if not args.only_delimited:
                        out.append(line)
                else:
                    fields = line.split(delim)
                    joiner = args.output_delimiter if args.output_delimiter is not None else delim
                    out.append(joiner.join(f for i, f in enumerate(fields, 1) if _selected(i, ranges)))
        ctx.out(join_lines(out))
        return status


class Paste(CoreutilsErrors, Intermixed):
    name = "paste"
    summary = "merge lines of files (-s: one file per line; -d LIST: delimiters)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--delimiters", default="\t", metavar="LIST", help="reuse characters from LIST instead of TABs")
        parser.add_argument("-s", "--serial", action="store_true", help="paste one file at a time instead of in parallel")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        delims = tr_set(args.delimiters) if args.delimiters else ""
        columns_: list[list[str]] = []
        for path in args.files or ["-"]:
            try:
                columns_.append(split_lines(read_input(ctx, path)))
            except FsError as exc:
                raise ctx.fail(exc.message("paste"), 1) from None

        def joined(cells: list[str]) -> str:
            if not delims:
                return "".join(cells)
            out = cells[0] if cells else ""
            for i, cell in enumerate(cells[1:]):
                out += delims[i % len(delims)] + cell
            return out

        if args.serial:
            ctx.out(join_lines([joined(col) for col in columns_]))
            return 0
        rows = max((len(c) for c in columns_), default=0)
        ctx.out(join_lines([joined([c[r] if r < len(c) else "" for c in columns_]) for r in range(rows)]))
        return 0


class Column(CoreutilsErrors, Intermixed):
    name = "column"
    reads_only = True
    summary = "format input into columns (-t: a table; -s SEP; -o OUTSEP)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-t", "--table", action="store_true", help="create a table")
        parser.add_argument("-s", "--separator", metavar="SEP", help="possible table delimiters")
        parser.add_argument("-o", "--output-separator", default="  ", metavar="STRING", help="columns separator for table output")
        parser.add_argument("-c", "--output-width", type=int, default=80, metavar="WIDTH", help="width of output in number of characters")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        lines: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                raise ctx.fail(exc.message("column"), 1) from None
        lines = [line for line in lines if line.strip()]
        if not args.table:
            words = [w for line in lines for w in line.split()]
            ctx.out(join_lines(columns(words, max(10, args.output_width))))
            return 0
        if args.separator:
            pattern = "[" + re.escape(args.separator) + "]+"
            rows = [re.split(pattern, line) for line in lines]
        else:
            rows = [line.split() for line in lines]
        count = max((len(r) for r in rows), default=0)
        widths = [max((len(r[i]) for r in rows if i < len(r)), default=0) for i in range(count)]
        out = []
        for row in rows:
            out.append("".join(cell.ljust(widths[i]) + args.output_separator if i < count - 1 else cell
                               for i, cell in enumerate(row)))
        ctx.out(join_lines(out))
        return 0
