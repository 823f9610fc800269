"""``df`` (coreutils): space on each mounted filesystem, in 1K blocks or human sizes."""

from __future__ import annotations

import argparse
import math

from emulator.commands.host.mounts import mounts
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import coreutils_kib


class Df(ParsedCommand):
    name = "df"
    reads_only = True
    summary = "report file system space usage"
    section = "Host"
    add_help_flag = False

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-h", "--human-readable", action="store_true", help="print sizes in powers of 1024")
        parser.add_argument("-H", "--si", action="store_true", help="print sizes in powers of 1000")
        parser.add_argument("-T", "--print-type", action="store_true", help="print file system type")
        parser.add_argument("-t", "--type", metavar="TYPE", help="limit listing to file systems of type TYPE")
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("files", nargs="*", metavar="FILE", help="show the file system holding each FILE")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        items = mounts(ctx, ctx.host)
        status = 0
        if args.type:
            items = [m for m in items if m.fstype == args.type]
        if args.files:
            chosen = []
            for path in args.files:
                full = ctx.fs.abspath(path)
                if not ctx.fs.exists(full) and not any(full == m.target or full.startswith(m.target.rstrip("/") + "/")
                                                       for m in items if m.target != "/"):
                    ctx.err(f"df: {path}: No such file or directory\n")
                    status = 1
                    continue
                best = max((m for m in items if full == m.target or full.startswith(m.target.rstrip("/") + "/")
                            or m.target == "/"), key=lambda m: len(m.target), default=None)
                if best is not None:  # None: -t left out the file system holding it
                    chosen.append(best)
            items = chosen
        human = args.human_readable or args.si

        def size(kib: int) -> str:
            return coreutils_kib(kib, args.si) if human else str(kib)

        head = ["Filesystem"] + (["Type"] if args.print_type else []) + \
            (["Size", "Used", "Avail", "Use%", "Mounted on"] if human else
             ["1K-blocks", "Used", "Available", "Use%", "Mounted on"])
        rows = []
        for m in items:
            pct = "-" if not m.size_kib else f"{math.ceil(100 * m.used_kib / max(1, m.used_kib + m.avail_kib))}%"
            rows.append([m.source] + ([m.fstype] if args.print_type else []) +
                        [size(m.size_kib), size(m.used_kib), size(m.avail_kib), pct, m.target])
        if not rows:
            if args.type and status == 0:
                ctx.err("df: no file systems processed\n")  # coreutils, when -t leaves nothing to list
                return 1
            return status
        left = {0, len(head) - 1} | ({1} if args.print_type else set())
        # With -h/-H the size columns are at least 5 wide and Use% 4, as coreutils pads them.
        minimum = [5 if human and k not in left and head[k] != "Use%" else 4 if head[k] == "Use%" else 0
                   for k in range(len(head))]
        widths = [max([minimum[k]] + [len(r[k]) for r in [head] + rows]) for k in range(len(head))]
        for r in [head] + rows:
            cells = [r[k].ljust(widths[k]) if k in left else r[k].rjust(widths[k]) for k in range(len(head))]
            ctx.outln(" ".join(cells).rstrip())
        return status
