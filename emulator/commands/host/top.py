"""``top`` in batch mode (procps-ng): the summary lines and the busiest processes, frame by frame.

Frames are ``-d`` seconds apart on the simulated clock; the process table is
:func:`emulator.cluster.processes.processes`, the one ``ps`` and ``pgrep`` read.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator

from emulator.cluster.boots import boot_offset, load_average
from emulator.cluster.ids import rng
from emulator.cluster.processes import cpu_split, memory, processes
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import top_cputime
from emulator.commands.kit.usage import getopt_error


def _scaled(kib: int, width: int) -> str:
    """top's memory columns: KiB while it fits, then m/g/t with one decimal."""
    text = str(kib)
    if len(text) <= width:
        return text
    value = float(kib)
    for unit in ("m", "g", "t"):
        value /= 1024
        text = f"{value:.1f}{unit}"
        if len(text) <= width:
            return text
    return text


class Top(ParsedCommand):
    name = "top"
    summary = "display Linux processes (batch mode)"
    section = "Host"
    notes = ("Batch mode only: prints -n iterations (default 1), -d seconds apart on the simulated clock.\n"
             "Each frame lists the 40 busiest processes (all of them with -u or -p); kernel threads are counted\n"
             "in Tasks but not listed.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-b", action="store_true", help="batch mode")
        parser.add_argument("-n", type=int, default=1, metavar="NUMBER", help="number of iterations")
        parser.add_argument("-d", type=float, default=3.0, metavar="SECS", help="delay between updates")
        parser.add_argument("-c", action="store_true", help="show command lines")
        parser.add_argument("-u", metavar="USER", help="only this user's processes")
        parser.add_argument("-p", metavar="PIDLIST", help="only these processes")
        parser.add_argument("-o", metavar="FIELD", help="sort by field (%%CPU, %%MEM, PID, RES, TIME+)")
        parser.add_argument("-w", type=int, nargs="?", const=512, metavar="COLS", help="output width")

    usage_status = 1

    def usage_error(self, message: str) -> str:
        return f"top: {getopt_error('top', message).split(': ', 1)[1]}\nUsage:\n  top -hv | -bcEeHiOSs1 -d secs " \
               "-n max -u|U user -p pid(s) -o field -w [cols]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.n < 1 or args.n > 1000 or args.d < 0:
            raise ctx.fail("top: bad iterations argument" if args.n < 1 or args.n > 1000 else "top: bad delay interval",
                           1)
        return self._frames(ctx, args)

    def _frames(self, ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
        for i in range(args.n):
            if i:
                yield args.d
                ctx.outln()
            self._frame(ctx, args)
        return 0

    def _frame(self, ctx: Context, args: argparse.Namespace) -> None:
        node = ctx.host
        procs = processes(ctx.cluster, node)
        mem = memory(ctx.cluster, node, procs)
        now = ctx.clock.elapsed
        up = int(now - boot_offset(node))
        days, rest = divmod(up, 86_400)
        hours, minutes = rest // 3600, rest % 3600 // 60
        uptxt = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + \
            (f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min")
        one, five, fifteen = load_average(ctx.cluster, node)
        ctx.outln(f"top - {ctx.clock.now():%H:%M:%S} up {uptxt},  1 user,  load average: {one:.2f}, {five:.2f}, "
                  f"{fifteen:.2f}")
        tasks = len(procs) + 640 + rng(ctx.cluster.seed, node.name, "kthreads").randrange(40)
        running = sum(1 for p in procs if p.state.startswith("R"))
        ctx.outln(f"Tasks: {tasks:>3} total, {running:>3} running, {tasks - running:>3} sleeping,   0 stopped,   "
                  "0 zombie")
        us, sy, wa, idle = cpu_split(ctx.cluster, node, 0, procs)
        ctx.outln(f"%Cpu(s): {us:4.1f} us, {sy:4.1f} sy,  0.0 ni, {max(0.0, idle - 0.2):4.1f} id, "
                  f"{wa:4.1f} wa,  0.0 hi,  0.2 si,  0.0 st")
        mib = 1024.0
        ctx.outln(f"MiB Mem : {mem.total / mib:8.1f} total, {mem.free / mib:8.1f} free, {mem.used / mib:8.1f} used, "
                  f"{mem.buff_cache / mib:8.1f} buff/cache")
        ctx.outln(f"MiB Swap: {0.0:8.1f} total, {0.0:8.1f} free, {0.0:8.1f} used. {mem.available / mib:8.1f} avail Mem ")
        ctx.outln()
        ctx.outln("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND")
        shown = procs
        if args.u:
            shown = [p for p in shown if p.user == args.u]
        if args.p:
            try:
                pids = {int(x) for x in args.p.split(",")}
            except ValueError:
                raise ctx.fail(f"top: pid not valid: {args.p}", 1) from None
            shown = [p for p in shown if p.pid in pids]
        key = (args.o or "%CPU").upper()
        sorters = {"%CPU": lambda p: p.cpu_pct, "%MEM": lambda p: p.rss_kib, "RES": lambda p: p.rss_kib,
                   "PID": lambda p: -p.pid, "TIME+": lambda p: p.cpu_time_s(now)}
        if key not in sorters:
            raise ctx.fail(f"top: unrecognized field name '{args.o}'", 1)
        shown = sorted(shown, key=lambda p: (sorters[key](p), -p.pid), reverse=True)
        limit = 40 if not (args.u or args.p) else len(shown)
        for p in shown[:limit]:
            state = p.state[0]
            cmd = p.args if args.c else p.comm
            ctx.outln(f"{p.pid:>7} {p.user:<8} {20 + p.nice:>3} {p.nice:>3} {_scaled(p.vsz_kib, 7):>7} "
                      f"{_scaled(p.rss_kib, 6):>6} {_scaled(p.shr_kib, 6):>6} {state} {p.cpu_pct:5.1f} "
                      f"{100.0 * p.rss_kib / mem.total:5.1f} {top_cputime(p.cpu_time_s(now)):>9} {cmd}")
