"""head and tail: the first or last lines (or bytes) of files; ``tail -f`` follows a growing file.

``tail -f`` polls for a few simulated seconds and then stops by itself.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, read_input
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import follows
from emulator.errors import CommandError
from emulator.limits import FOLLOW_LIMIT, limit_reached
from emulator.vfs import FsError

#: The pause between two looks of ``tail -f`` at its files, unless ``-s`` says.
FOLLOW_INTERVAL_S = 10.0


def _count_shorthand(argv: list[str]) -> list[str]:
    """``head -5`` means ``head -n 5`` (but ``head -n -5`` keeps its value)."""
    out: list[str] = []
    for i, a in enumerate(argv):
        is_value = i > 0 and argv[i - 1] in ("-n", "-c", "--lines", "--bytes")
        if not is_value and len(a) > 1 and a[0] == "-" and a[1:].isdecimal():
            out.append(f"-n{a[1:]}")
        else:
            out.append(a)
    return out


def _parse_count(text: str, prog: str, what: str = "lines") -> tuple[int, bool]:
    """A count for -n/-c: (value, from_start for +N / all_but for -N)."""
    sign = text[:1] if text[:1] in "+-" else ""
    digits = text[len(sign):]
    multipliers = {"": 1, "b": 512, "K": 1024, "k": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "kB": 1000, "MB": 1000 ** 2}
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", digits)
    if not match or match.group(2) not in multipliers:
        raise CommandError(f"{prog}: invalid number of {what}: ‘{text}’", 1)
    return int(match.group(1)) * multipliers[match.group(2)], bool(sign)


class Head(CoreutilsErrors, Intermixed):
    name = "head"
    reads_only = True
    summary = "print the first lines of files (-n N, -c N)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--lines", default="10", metavar="NUM", help="print the first NUM lines; -NUM: all but the last NUM")
        parser.add_argument("-c", "--bytes", metavar="NUM", help="print the first NUM bytes")
        parser.add_argument("-q", "--quiet", action="store_true", help="never print headers giving file names")
        parser.add_argument("-v", "--verbose", action="store_true", help="always print headers giving file names")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return super().parse(_count_shorthand(list(argv)))

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        files = args.files or ["-"]
        status = 0
        if args.bytes is not None:
            count, all_but = _parse_count(args.bytes, "head", "bytes")
        else:
            count, all_but = _parse_count(args.lines, "head")
            all_but = all_but and args.lines.startswith("-")
        for i, path in enumerate(files):
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                verb = "error reading" if isinstance(exc, FsError) and exc.strerror == "Is a directory" else "cannot open"
                suffix = "" if verb == "error reading" else " for reading"
                ctx.err(f"head: {verb} '{path}'{suffix}: {exc.strerror}\n")
                status = 1
                continue
            if (len(files) > 1 and not args.quiet) or args.verbose:
                ctx.out(("\n" if i else "") + f"==> {'standard input' if path == '-' else path} <==\n")
            if args.bytes is not None:
                data = text.encode()
                ctx.out((data[:-count] if all_but and count else b"" if all_but else data[:count]).decode(errors="replace")
                        if not (all_but and count == 0) else text)
                continue
            lines = text.splitlines(keepends=True)
            chosen = lines[:-count] if all_but and count else lines if all_but else lines[:count]
            ctx.out("".join(chosen))
        return status


class Tail(CoreutilsErrors, Intermixed):
    name = "tail"
    streams = True
    summary = "print the last lines of files (-n N, -n +N, -f: follow a growing file for a while)"
    section = SECTION
    usage_status = 1

    def pure(self, words: list[str]) -> bool:
        return not follows(words)

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--lines", default="10", metavar="NUM", help="output the last NUM lines; +NUM: from line NUM")
        parser.add_argument("-c", "--bytes", metavar="NUM", help="output the last NUM bytes")
        parser.add_argument("-f", "--follow", action="store_true", help="output appended data as the file grows")
        parser.add_argument("-F", dest="follow_retry", action="store_true", help="same as --follow=name --retry")
        parser.add_argument("-q", "--quiet", action="store_true", help="never output headers giving file names")
        parser.add_argument("-s", "--sleep-interval", type=float, metavar="N", help="seconds between checks with -f")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return super().parse(_count_shorthand(list(argv)))

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        files = args.files or ["-"]
        status = 0
        what = "bytes" if args.bytes is not None else "lines"
        count, from_start = _parse_count(args.bytes if args.bytes is not None else args.lines, "tail", what)
        from_start = from_start and (args.bytes or args.lines).startswith("+")
        seen: dict[str, str] = {}
        headers = len(files) > 1 and not args.quiet
        for i, path in enumerate(files):
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(f"tail: cannot open '{path}' for reading: {exc.strerror}\n")
                status = 1
                continue
            if headers:
                ctx.out(("\n" if i else "") + f"==> {'standard input' if path == '-' else path} <==\n")
            ctx.out(_tail_text(text, count, from_start, what == "bytes"))
            seen[path] = text
        if not (args.follow or args.follow_retry) or not seen or files == ["-"]:
            return status
        return self._follow(ctx, seen, headers, max(0.1, args.sleep_interval or FOLLOW_INTERVAL_S))

    @staticmethod
    def _follow(ctx: Context, seen: dict[str, str], headers: bool, interval: float) -> Outcome:
        last = list(seen)[-1]
        for _ in range(FOLLOW_LIMIT):
            yield interval
            for path, old in seen.items():
                try:
                    new = ctx.fs.read(path)
                except FsError:
                    continue
                if new == old:
                    continue
                if headers and path != last:
                    ctx.out(f"\n==> {path} <==\n")
                    last = path
                if new.startswith(old):
                    ctx.out(new[len(old):])
                else:
                    ctx.err(f"tail: {path}: file truncated\n")
                    ctx.out(new)
                seen[path] = new
        ctx.err(limit_reached(f"tail: stopped following after {FOLLOW_LIMIT} looks") + "\n")
        return 1


def _tail_text(text: str, count: int, from_start: bool, as_bytes: bool) -> str:
    if as_bytes:
        data = text.encode()
        chosen = data[max(0, count - 1):] if from_start else (data[-count:] if count else b"")
        return chosen.decode(errors="replace")
    lines = text.splitlines(keepends=True)
    if from_start:
        return "".join(lines[max(0, count - 1):])
    return "".join(lines[-count:]) if count else ""
