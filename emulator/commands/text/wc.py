"""wc: lines, words, characters and bytes, in coreutils' column widths."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, read_input
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError


class Wc(CoreutilsErrors, Intermixed):
    name = "wc"
    reads_only = True
    summary = "count lines, words and bytes (-l -w -c -m)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-l", "--lines", action="store_true", help="print the newline counts")
        parser.add_argument("-w", "--words", action="store_true", help="print the word counts")
        parser.add_argument("-c", "--bytes", action="store_true", help="print the byte counts")
        parser.add_argument("-m", "--chars", action="store_true", help="print the character counts")
        parser.add_argument("-L", "--max-line-length", action="store_true", help="print the maximum display width")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        chosen = [k for k in ("lines", "words", "chars", "bytes", "max_line_length") if getattr(args, k)]
        if not chosen:
            chosen = ["lines", "words", "bytes"]
        files = args.files or ["-"]
        rows: list[tuple[list[int], str]] = []
        status = 0
        regular_total = 0
        stdin_used = False
        for path in files:
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(exc.message("wc") + "\n")
                status = 1
                if exc.strerror == "Is a directory":
                    rows.append(([0] * len(chosen), path))
                continue
            if path == "-":
                stdin_used = True
            else:
                regular_total += len(text.encode())
            counts = {"lines": text.count("\n"), "words": len(text.split()), "chars": len(text),
                      "bytes": len(text.encode()), "max_line_length": max((len(x) for x in text.split("\n")), default=0)}
            rows.append(([counts[k] for k in chosen], "" if path == "-" and not args.files else path))
        if len(rows) > 1:
            rows.append(([sum(r[0][i] for r in rows) for i in range(len(chosen))], "total"))
        if len(files) == 1 and len(chosen) == 1:
            width = 1
        else:
            width = max(len(str(regular_total)), 7 if stdin_used else 1)
        for values, label in rows:
            line = " ".join(f"{v:>{width}}" for v in values)
            ctx.outln(f"{line} {label}" if label else line)
        return status
