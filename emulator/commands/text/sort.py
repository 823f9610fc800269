"""sort: lines ordered by whole line or by keys (-k), as text or as numbers of several kinds."""

from __future__ import annotations

import argparse
import functools
import re

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, join_lines, read_input, split_lines
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError

_KEY = re.compile(r"^(\d+)(?:\.(\d+))?([bdfghnrMV]*)(?:,(\d+)(?:\.(\d+))?([bdfghnrMV]*))?$")
_HUMAN = {"": 0, "K": 1, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_NUMBER = re.compile(r"^\s*(-?\d*(?:\.\d+)?)")


def _numeric(text: str) -> float:
    match = _NUMBER.match(text)
    try:
        return float(match.group(1)) if match and match.group(1) not in ("", "-") else 0.0
    except ValueError:
        return 0.0


def _human(text: str) -> tuple[int, float]:
    match = re.match(r"^\s*(-?\d*(?:\.\d+)?)([KkMGTPE]?)", text)
    if not match or match.group(1) in ("", "-"):
        return (0, 0.0)
    value = float(match.group(1))
    sign = -1 if value < 0 else 1
    return (sign * _HUMAN[match.group(2)], value)


class Sort(CoreutilsErrors, Intermixed):
    name = "sort"
    summary = "sort lines (-n -r -k -t -h -u -f -g -s -b -V)"
    section = SECTION
    add_help_flag = False  # -h means --human-numeric-sort

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("-n", "--numeric-sort", action="store_true", help="compare according to string numerical value")
        parser.add_argument("-g", "--general-numeric-sort", action="store_true", help="compare according to general numerical value")
        parser.add_argument("-h", "--human-numeric-sort", action="store_true", help="compare human readable numbers (e.g., 2K 1G)")
        parser.add_argument("-V", "--version-sort", action="store_true", help="natural sort of (version) numbers within text")
        parser.add_argument("-r", "--reverse", action="store_true", help="reverse the result of comparisons")
        parser.add_argument("-f", "--ignore-case", action="store_true", help="fold lower case to upper case characters")
        parser.add_argument("-b", "--ignore-leading-blanks", action="store_true", help="ignore leading blanks")
        parser.add_argument("-u", "--unique", action="store_true", help="output only the first of an equal run")
        parser.add_argument("-s", "--stable", action="store_true", help="disable last-resort comparison")
        parser.add_argument("-k", "--key", action="append", metavar="KEYDEF", help="sort via a key; KEYDEF gives location and type")
        parser.add_argument("-t", "--field-separator", metavar="SEP", help="use SEP instead of non-blank to blank transition")
        parser.add_argument("-o", "--output", metavar="FILE", help="write result to FILE instead of standard output")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.field_separator is not None and len(args.field_separator) != 1:
            if args.field_separator == "\\t":
                args.field_separator = "\t"
            elif not args.field_separator:
                raise ctx.fail("sort: empty tab", 2)
            else:
                raise ctx.fail(f"sort: multi-character tab ‘{args.field_separator}’", 2)
        global_opts = "".join(f for f, on in (("n", args.numeric_sort), ("g", args.general_numeric_sort),
                                               ("h", args.human_numeric_sort), ("V", args.version_sort),
                                               ("f", args.ignore_case), ("b", args.ignore_leading_blanks)) if on)
        keys = []
        for spec in args.key or []:
            match = _KEY.match(spec)
            if match and match.group(1) == "0":
                raise ctx.fail(f"sort: field number is zero: invalid field specification ‘{spec}’", 2)
            if not match:
                raise ctx.fail(f"sort: invalid number at field start: invalid count at start of ‘{spec}’", 2)
            start, start_char, opts1, end, end_char, opts2 = match.groups()
            opts = (opts1 or "") + (opts2 or "")
            keys.append((int(start), int(start_char or 1), int(end) if end else None, int(end_char or 0),
                         opts or global_opts, "r" in opts if opts else args.reverse))
        lines: list[str] = []
        for path in args.files or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                raise ctx.fail(f"sort: cannot read: {path}: {exc.strerror}", 2) from None
        sep = args.field_separator

        def extract(line: str, key: tuple) -> str:
            start, start_char, end, end_char, opts, _ = key
            fields = line.split(sep) if sep is not None else re.findall(r"\s*\S+", line) or [""]
            joiner = sep if sep is not None else ""
            if start > len(fields):
                return ""
            first = fields[start - 1]
            if "b" in opts:
                first = first.lstrip()
            chosen = [first[start_char - 1:], *fields[start:end if end else len(fields)]]
            if end is not None and end < start:
                return ""
            text = joiner.join(chosen)
            if end is not None and end_char:
                last = fields[end - 1] if end <= len(fields) else ""
                cut = len(text) - len(last) + end_char
                text = text[:cut]
            return text

        def compare_values(a: str, b: str, opts: str) -> int:
            if "n" in opts:
                x, y = _numeric(a), _numeric(b)
            elif "g" in opts:
                x, y = _general(a), _general(b)
            elif "h" in opts:
                x, y = _human(a), _human(b)  # type: ignore[assignment]
            elif "V" in opts:
                x, y = _version_key(a), _version_key(b)  # type: ignore[assignment]
            elif "f" in opts:
                x, y = a.upper(), b.upper()  # type: ignore[assignment]
            else:
                if "b" in opts:
                    a, b = a.lstrip(), b.lstrip()
                x, y = a, b  # type: ignore[assignment]
            return (x > y) - (x < y)

        whole = [(1, 1, None, 0, global_opts, args.reverse)]

        def compare(a: str, b: str) -> int:
            for key in keys or whole:
                result = compare_values(extract(a, key) if keys else a, extract(b, key) if keys else b, key[4])
                if result:
                    return -result if key[5] else result
            if args.stable or args.unique:
                return 0
            result = (a > b) - (a < b)
            return -result if args.reverse else result

        lines.sort(key=functools.cmp_to_key(compare))
        if args.unique:
            unique: list[str] = []
            for line in lines:
                if not unique or compare(unique[-1], line) != 0:
                    unique.append(line)
            lines = unique
        text = join_lines(lines)
        if args.output:
            try:
                ctx.fs.write(args.output, text)
            except FsError as exc:
                raise ctx.fail(f"sort: open failed: {args.output}: {exc.strerror}", 2) from None
            return 0
        ctx.out(text)
        return 0


def _general(text: str) -> float:
    try:
        return float(text.strip().split()[0]) if text.strip() else float("-inf")
    except ValueError:
        return float("-inf")


def _version_key(text: str) -> list[tuple[int, object]]:
    return [(0, int(part)) if part.isdecimal() else (1, part) for part in re.findall(r"\d+|\D+", text)]
