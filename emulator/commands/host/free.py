"""``free`` (procps-ng): the host's memory, from the same figures ``top``, ``vmstat`` and ``numactl`` read."""

from __future__ import annotations

import argparse

from emulator.cluster.processes import memory
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import procps_size
from emulator.commands.kit.usage import getopt_error


class Free(ParsedCommand):
    name = "free"
    reads_only = True
    summary = "display amount of free and used memory in the system"
    section = "Host"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-h", "--human", action="store_true", help="show human-readable output")
        parser.add_argument("-g", "--gibi", action="store_true", help="show output in gibibytes")
        parser.add_argument("-m", "--mebi", action="store_true", help="show output in mebibytes")
        parser.add_argument("-k", "--kibi", action="store_true", help="show output in kibibytes")
        parser.add_argument("-w", "--wide", action="store_true", help="wide output")
        parser.add_argument("-t", "--total", action="store_true", help="show total for RAM + swap")
        parser.add_argument("--help", action="help", help="display this help and exit")

    add_help_flag = False
    usage_status = 1

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\n\nUsage:\n free [options]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        m = memory(ctx.cluster, ctx.host)

        def fmt(kib: int) -> str:
            if args.human:
                return procps_size(kib)
            if args.gibi:
                return str(kib // 1024 // 1024)
            if args.mebi:
                return str(kib // 1024)
            return str(kib)

        if args.wide:
            ctx.outln(" " * 15 + "total        used        free      shared     buffers       cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buffers, m.cached, m.available]
        else:
            ctx.outln(" " * 15 + "total        used        free      shared  buff/cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buff_cache, m.available]
        ctx.outln(f"{'Mem:':<8}" + "".join(f"{fmt(v):>12}" for v in mem))
        ctx.outln(f"{'Swap:':<8}" + "".join(f"{fmt(v):>12}" for v in (0, 0, 0)))
        if args.total:
            ctx.outln(f"{'Total:':<8}" + "".join(f"{fmt(v):>12}" for v in (m.total, m.used, m.free)))
        return 0
