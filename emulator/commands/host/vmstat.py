"""``vmstat`` (procps-ng): processes, memory, block I/O and CPU, one line per sample."""

from __future__ import annotations

import argparse
from collections.abc import Generator

from emulator.cluster.ids import rng
from emulator.cluster.processes import cpu_split, memory, processes
from emulator.cluster.strays import stray_threads, strays_now
from emulator.commands.host.iostat import device_load
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.sampling import samples, stopped
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error


class Vmstat(ParsedCommand):
    name = "vmstat"
    summary = "report virtual memory statistics"
    section = "Host"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-w", "--wide", action="store_true", help="wide output")
        parser.add_argument("-S", "--unit", metavar="UNIT", help="k, K, m or M")
        parser.add_argument("numbers", nargs="*", metavar="delay [count]", help="delay and count")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\n\nUsage:\n vmstat [options] [delay [count]]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        try:
            numbers = [int(n) for n in args.numbers]
        except ValueError:
            raise ctx.fail("vmstat: Unable to parse argument\n\nUsage:\n vmstat [options] [delay [count]]", 1) from None
        if len(numbers) > 2 or any(n < 0 for n in numbers):
            raise ctx.fail("vmstat: Unable to parse argument\n\nUsage:\n vmstat [options] [delay [count]]", 1)
        delay = numbers[0] if numbers else 0
        asked = numbers[1] if len(numbers) > 1 else (1 if not delay else None)
        if delay == 0:
            asked = 1
        return self._lines(ctx, delay, asked, (args.unit or "k"))

    def _lines(self, ctx: Context, delay: int, asked: int | None, unit: str) -> Generator[float, None, int]:
        node = ctx.host
        div = 1024 if unit in ("m", "M") else 1
        ctx.outln("procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----")
        ctx.outln(" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st")
        for n in range(samples(asked)):
            if n:
                yield float(delay)
            procs = processes(ctx.cluster, node)
            mem = memory(ctx.cluster, node, procs)
            running = sum(1 for p in procs if p.state.startswith("R"))
            # r counts runnable threads (procs_running): each stray process keeps all its threads busy.
            threads = running + stray_threads(ctx.cluster, node) - sum(s.procs for s in strays_now(ctx.cluster, node))
            blocked = sum(1 for p in procs if p.state.startswith("D"))
            r = rng(ctx.cluster.seed, node.name, "vmstat", n, int(ctx.clock.elapsed))
            us, sy, wa, idle = cpu_split(ctx.cluster, node, n, procs)
            loads = [device_load(ctx, node, d.name, n) for d in node.hw.disks]
            bi, bo = int(sum(v[1] for v in loads)), int(sum(v[7] for v in loads))
            irq = int(4000 + running * 900 + r.uniform(0, 800))
            cs = int(6000 + running * 2400 + r.uniform(0, 2000))
            ctx.outln(f"{threads:>2} {blocked:>2} {0:>6} {mem.free // div:>6} {mem.buffers // div:>6} "
                      f"{mem.cached // div:>6} {0:>4} {0:>4} {bi:>5} {bo:>5} {irq:>4} {cs:>4} {round(us):>2} "
                      f"{round(sy):>2} {round(idle):>2} {round(wa):>2} {0:>2}")
        return stopped(ctx, "vmstat", asked)
