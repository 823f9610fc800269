"""``numastat -p`` (numactl): where a process's memory sits, per NUMA node, from the areas ``numa_maps`` shows.

One process (a PID, or a name that matches one process) gets numastat's
per-node table of Huge, Heap, Stack and Private memory in MB; a name that
matches several gets one row per process. The system-wide counters that a
bare ``numastat`` prints (numa_hit, numa_miss...) are not kept by the model,
so that form says so and fails rather than print made-up counts.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from emulator.cluster.processes import Proc, processes
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.usage import getopt_error
from emulator.hostfs.numamaps import PAGE_KIB, mappings
from emulator.limits import limit_reached

#: The label column, then the first and every further number column, as numastat lays them out.
LABEL, FIRST, REST = 16, 17, 16


class Numastat(ParsedCommand):
    name = "numastat"
    reads_only = True
    summary = "show per-NUMA-node memory of processes"
    section = "Host"
    synopsis = "-p <PID>|<pattern> [-c]"
    usage_status = 1

    def usage_error(self, message: str) -> str:
        # numastat.c: getopt's complaint, then its usage, exit status 1.
        return getopt_error(self.name, message) + f"\nUsage: numastat {self.synopsis}"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-p", dest="patterns", action="append", default=[], metavar="PID|pattern",
                            help="show per-node memory of the process with this PID, or whose command matches")
        parser.add_argument("-c", dest="compact", action="store_true", help="shrink the table to fit its numbers")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if not args.patterns:
            raise ctx.fail(limit_reached("numastat: the system-wide counters (numa_hit, numa_miss, ...) are not "
                                         "kept; numastat -p PID shows a process's memory per node"), 1)
        procs = processes(ctx.cluster, ctx.host)
        chosen = [p for p in procs if any(_matches(p, pattern) for pattern in args.patterns) and p.vsz_kib]
        nodes = list(range(max(1, ctx.host.numa_nodes)))
        if not chosen:
            ctx.outln("")
            ctx.outln("Per-node process memory usage (in MBs)")
            ctx.outln(_row("PID", [f"Node {n}" for n in nodes] + ["Total"], args.compact))
            return 0
        if len(chosen) == 1 and not args.compact:
            self._one(ctx, chosen[0], nodes)
            return 0
        ctx.outln("")
        ctx.outln("Per-node process memory usage (in MBs)")
        ctx.outln(_row("PID", [f"Node {n}" for n in nodes] + ["Total"], args.compact))
        ctx.outln(_rule(len(nodes) + 1, args.compact))
        totals = [0.0] * len(nodes)
        for proc in chosen:
            per_node = _per_node(ctx, proc, nodes, lambda _what: True)
            totals = [a + b for a, b in zip(totals, per_node)]
            label = f"{proc.pid} ({proc.comm})"
            ctx.outln(_row(label[:LABEL] if args.compact else label, _mb(per_node, args.compact), args.compact))
        ctx.outln(_rule(len(nodes) + 1, args.compact))
        ctx.outln(_row("Total", _mb(totals, args.compact), args.compact))
        return 0

    def _one(self, ctx: Context, proc: Proc, nodes: list[int]) -> None:
        ctx.outln("")
        ctx.outln(f"Per-node process memory usage (in MBs) for PID {proc.pid} ({proc.comm})")
        ctx.outln(_row("", [f"Node {n}" for n in nodes] + ["Total"], False))
        ctx.outln(" " * (LABEL + 2) + " ".join("-" * 15 for _ in range(len(nodes) + 1)))
        kinds: dict[str, Callable[[str], bool]] = {"Huge": lambda what: False, "Heap": lambda what: what == "heap",
                 "Stack": lambda what: what == "stack", "Private": lambda what: what not in ("heap", "stack")}
        totals = [0.0] * len(nodes)
        for label, wanted in kinds.items():
            per_node = _per_node(ctx, proc, nodes, wanted)
            totals = [a + b for a, b in zip(totals, per_node)]
            ctx.outln(_row(label, _mb(per_node, False), False))
        ctx.outln("-" * LABEL + "  " + " ".join("-" * 15 for _ in range(len(nodes) + 1)))
        ctx.outln(_row("Total", _mb(totals, False), False))


def _matches(proc: Proc, pattern: str) -> bool:
    """A PID, or a pattern found in the process's command name or line (as numastat searches /proc)."""
    return proc.pid == int(pattern) if pattern.isdecimal() else pattern in proc.comm or pattern in proc.args


def _per_node(ctx: Context, proc: Proc, nodes: list[int], wanted: Callable[[str], bool]) -> list[float]:
    """MB of ``proc``'s areas that ``wanted`` selects (by what they map), on each node."""
    pages = [0] * len(nodes)
    for area in mappings(ctx.cluster, ctx.host, proc):
        if wanted(area.what):
            for node, count in area.nodes.items():
                if node < len(pages):
                    pages[node] += count
    return [count * PAGE_KIB / 1024 for count in pages]


def _mb(per_node: list[float], compact: bool) -> list[str]:
    values = per_node + [sum(per_node)]
    return [f"{v:.0f}" if compact else f"{v:.2f}" for v in values]


def _row(label: str, cells: list[str], compact: bool) -> str:
    if compact:
        return f"{label:<16} " + " ".join(f"{c:>6}" for c in cells)
    return f"{label:<{LABEL}}" + f"{cells[0]:>{FIRST}}" + "".join(f"{c:>{REST}}" for c in cells[1:])


def _rule(columns: int, compact: bool) -> str:
    if compact:
        return "-" * 16 + " " + " ".join("-" * 6 for _ in range(columns))
    return "-" * LABEL + "  " + " ".join("-" * 15 for _ in range(columns))
