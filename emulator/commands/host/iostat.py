"""``iostat`` (sysstat 12): CPU and block device statistics, and the seeded device load ``vmstat`` also reads.

Block I/O is a modest seeded load on the local RAID of nodes that run a job,
different at every sample of the simulated clock.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator

from emulator.cluster.boots import boot_offset
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.cluster.processes import cpu_split, processes, running_jobs
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.sampling import samples, stopped
from emulator.commands.kit.spec import ArgumentParser

IOSTAT_HEAD = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm "
               "w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")


def _column_edges(header: str) -> list[int]:
    edges, pos = [], 0
    for token in header.split()[1:]:
        pos = header.index(token, pos) + len(token)
        edges.append(pos)
    return edges


def device_load(ctx: Context, node: Node, device: str, sample: int) -> list[float]:
    """One iostat row for ``device``: seeded modest load, different per sample."""
    r = rng(ctx.cluster.seed, node.name, "io", device, sample, int(ctx.clock.elapsed))
    # Jobs stage data and spill to the local RAID; an idle node's array is quiet.
    busy = (node.local_disk is not None and device in (("md0",) + node.local_disk.members)
            and bool(running_jobs(ctx.cluster, node)))
    if device == "nvme0n1":
        rs, rkb, ws, wkb = r.uniform(0.5, 3), r.uniform(20, 90), r.uniform(8, 30), r.uniform(150, 600)
    elif busy:
        scale = 8.0 if device == "md0" else 1.0
        rs, ws = r.uniform(10, 30) * scale, r.uniform(2, 9) * scale
        rkb, wkb = rs * r.uniform(120, 130), ws * r.uniform(240, 260)
    else:
        rs = rkb = ws = wkb = 0.0
    rawait = r.uniform(0.08, 0.2) if rs else 0.0
    wawait = r.uniform(0.02, 0.08) if ws else 0.0
    aqu = rs * rawait / 1000 + ws * wawait / 1000
    util = min(100.0, (rs + ws) * 0.012)
    return [rs, rkb, 0.0, 0.0, rawait, rkb / rs if rs else 0.0, ws, wkb, r.uniform(0, 3) if ws else 0.0,
            0.0, wawait, wkb / ws if ws else 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            r.uniform(0, 1) if ws else 0.0, r.uniform(0.3, 0.6) if ws else 0.0, aqu, util]


class Iostat(ParsedCommand):
    name = "iostat"
    summary = "report CPU and block device I/O statistics (sysstat 12)"
    section = "Host"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-x", action="store_true", help="display extended statistics")
        parser.add_argument("-c", action="store_true", help="display the CPU utilization report only")
        parser.add_argument("-d", action="store_true", help="display the device utilization report only")
        parser.add_argument("-y", action="store_true", help="omit the first report (statistics since boot)")
        parser.add_argument("-m", action="store_true", help="display statistics in megabytes per second")
        parser.add_argument("devices", nargs="*", metavar="[device] [interval [count]]",
                            help="devices to report, then interval and count")

    def usage_error(self, message: str) -> str:
        return ("Usage: iostat [ options ] [ <interval> [ <count> ] ]\nOptions are:\n"
                "[ -c ] [ -d ] [ -h ] [ -k | -m ] [ -N ] [ -s ] [ -t ] [ -V ] [ -x ] [ -y ] [ -z ]")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        numbers = [w for w in args.devices if w.isdecimal()]
        names = [w for w in args.devices if not w.isdecimal()]
        if len(numbers) > 2 or (numbers and args.devices[-len(numbers):] != numbers):
            raise ctx.fail(self.usage_error(""), 1)
        # Past 18 digits a number means "forever" (Python refuses to read 4300 digits at all).
        interval, given = (min(int((n.lstrip("0") or "0")[:19]), 10**18) for n in [*numbers, "0", "0"][:2])
        count = given if len(numbers) > 1 else (1 if not interval else None)
        node = ctx.host
        devices = [d.name for d in node.hw.disks]
        if node.local_disk is not None:
            devices.append(node.local_disk.device.split("/")[-1])
        if names:
            unknown = [n for n in names if n not in devices]
            if unknown:
                return self._report(ctx, args, [], interval, count)
            devices = [d for d in devices if d in names]
        return self._report(ctx, args, devices, interval, count)

    def _report(self, ctx: Context, args: argparse.Namespace, devices: list[str], interval: int,
                asked: int | None) -> Generator[float, None, int]:
        node = ctx.host
        ctx.outln(f"Linux {ctx.cluster.versions.kernel} ({node.name}) \t{ctx.clock.now():%m/%d/%y} \t_x86_64_\t"
                  f"({node.cpu.count} CPU)")
        ctx.outln()
        first = 1 if args.y else 0
        for n in range(first, first + samples(asked)):
            if n > first or (args.y and interval):
                yield float(interval)
            show_cpu = args.c or not args.d
            show_dev = args.d or not args.c
            if show_cpu:
                us, sy, wa, idle = cpu_split(ctx.cluster, node, n, processes(ctx.cluster, node))
                ctx.outln("avg-cpu:  %user   %nice %system %iowait  %steal   %idle")
                ctx.outln(f"          {us:6.2f}    0.00  {sy:6.2f}  {wa:6.2f}    0.00  {idle:6.2f}")
                ctx.outln()
            if show_dev:
                if args.x:
                    edges = _column_edges(IOSTAT_HEAD)
                    ctx.outln(IOSTAT_HEAD)
                    for dev in devices:
                        row = dev.ljust(13)
                        for value, edge in zip(device_load(ctx, node, dev, n), edges):
                            text = f"{value:.2f}"
                            row += " " * max(1, edge - len(row) - len(text)) + text
                        ctx.outln(row)
                else:
                    ctx.outln("Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn"
                              "    kB_dscd")
                    uptime = ctx.clock.elapsed - boot_offset(node)
                    for dev in devices:
                        v = device_load(ctx, node, dev, n)
                        span = uptime if n == 0 else max(1, interval)
                        ctx.outln(f"{dev:<12} {v[0] + v[6]:>9.2f} {v[1]:>12.2f} {v[7]:>12.2f} {0.0:>12.2f} "
                                  f"{int(v[1] * span):>10} {int(v[7] * span):>10} {0:>10}")
                ctx.outln()
        return stopped(ctx, "iostat", asked)
