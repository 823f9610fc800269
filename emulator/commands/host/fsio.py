"""Filesystems and block I/O of a host: ``df``, ``mount``, ``lsblk``,
``iostat``, ``vmstat`` and the Lustre client's ``lfs``.

Sizes come from the model (the node's NVMe and RAID, the parallel
filesystem's targets); block I/O is a modest seeded load on the local RAID of
nodes that run a job, different at every sample of the simulated clock.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Generator
from dataclasses import dataclass

from emulator.cluster.boots import boot_offset
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.cluster.processes import cpu_split, memory, processes, running_jobs
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import coreutils_kib, lustre_size, util_linux_size
from emulator.commands.kit.usage import getopt_error

SECTION = "Host"


# -- filesystems ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mount:
    source: str
    target: str
    fstype: str
    options: str
    size_kib: int
    used_kib: int

    @property
    def avail_kib(self) -> int:
        reserve = self.size_kib // 20 if self.fstype == "ext4" else 0
        return max(0, self.size_kib - self.used_kib - reserve)


def mounts(ctx: Context, node: Node) -> list[Mount]:
    """What the host has mounted, with sizes from the model."""
    r = rng(ctx.cluster.seed, node.name, "df")
    mem_kib = node.memory_kib
    fs = ctx.cluster.storage
    lustre_size = sum(t.size_kib for t in fs.targets if t.kind == "OST")
    lustre_used = sum(t.used_kib for t in fs.targets if t.kind == "OST")
    root_disk = node.hw.disks[0].size_bytes // 1024 if node.hw.disks else 1_875_385_008
    training = any(j.is_training for j in running_jobs(ctx.cluster, node))
    items = [
        Mount("tmpfs", "/run", "tmpfs", "rw,nosuid,nodev,noexec,relatime,size=211340712k,mode=755", mem_kib // 10,
              5_300 + r.randrange(400)),
        Mount("/dev/nvme0n1p2", "/", "ext4", "rw,relatime", root_disk - 1_100_000,
              40_000_000 + r.randrange(8_000_000)),
        Mount("tmpfs", "/dev/shm", "tmpfs", "rw,nosuid,nodev,inode64", mem_kib // 2,
              (14_600_000 if training else 0) + r.randrange(2_000)),
        Mount("tmpfs", "/run/lock", "tmpfs", "rw,nosuid,nodev,noexec,relatime,size=5120k,inode64", 5_120, 0),
        Mount("/dev/nvme0n1p1", "/boot/efi", "vfat", "rw,relatime,fmask=0077,dmask=0077,codepage=437", 523_248, 6_220),
    ]
    if node.local_disk is not None:
        d = node.local_disk
        size = d.member_bytes * len(d.members) // 1024 - 440_000_000
        items.append(Mount(d.device, d.mountpoint, "ext4", "rw,relatime,stripe=256", size,
                           int(size * d.used_fraction)))
    items.append(Mount(f"{fs.mgs_nid}:/{fs.fsname}", fs.mountpoint, "lustre",
                       "rw,checksum,flock,nouser_xattr,lruresize,lazystatfs,nouser_fid2path,verbose,encrypt",
                       lustre_size, lustre_used))
    items.append(Mount("tmpfs", "/run/user/1001", "tmpfs", "rw,nosuid,nodev,relatime,size=211340708k,nr_inodes="
                       "52835177,mode=700,uid=1001,gid=1001,inode64", mem_kib // 10, 4))
    return items


class Df(ParsedCommand):
    name = "df"
    reads_only = True
    summary = "report file system space usage"
    section = SECTION
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
                            or m.target == "/"), key=lambda m: len(m.target))
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
            return status or 0
        left = {0, len(head) - 1} | ({1} if args.print_type else set())
        # With -h/-H the size columns are at least 5 wide and Use% 4, as coreutils pads them.
        minimum = [5 if human and k not in left and head[k] != "Use%" else 4 if head[k] == "Use%" else 0
                   for k in range(len(head))]
        widths = [max([minimum[k]] + [len(r[k]) for r in [head] + rows]) for k in range(len(head))]
        for r in [head] + rows:
            cells = [r[k].ljust(widths[k]) if k in left else r[k].rjust(widths[k]) for k in range(len(head))]
            ctx.outln(" ".join(cells).rstrip())
        return status


class MountCmd(ParsedCommand):
    name = "mount"
    summary = "show mounted filesystems"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-t", "--types", metavar="TYPE", help="limit the listing to this filesystem type")
        parser.add_argument("-l", "--show-labels", action="store_true", help="show also filesystem labels")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        system = [("sysfs", "/sys", "sysfs", "rw,nosuid,nodev,noexec,relatime"),
                  ("proc", "/proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
                  ("udev", "/dev", "devtmpfs", "rw,nosuid,relatime,size=1056672556k,nr_inodes=264168139,mode=755,"
                                               "inode64"),
                  ("devpts", "/dev/pts", "devpts", "rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000")]
        items = [(s, t, f, o) for s, t, f, o in system] + \
            [(m.source, m.target, m.fstype, m.options) for m in mounts(ctx, ctx.host)]
        for source, target, fstype, options in items:
            if args.types and fstype not in args.types.split(","):
                continue
            ctx.outln(f"{source} on {target} type {fstype} ({options})")
        return 0


# -- lsblk -------------------------------------------------------------------------------------------


class Lsblk(ParsedCommand):
    name = "lsblk"
    summary = "list block devices"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--nodeps", action="store_true", help="don't print slaves or holders")
        parser.add_argument("devices", nargs="*", metavar="device", help="devices to list")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\nTry 'lsblk --help' for more information."

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        node = ctx.host
        raid = node.local_disk
        rows: list[tuple[str, int, int, str, str, str]] = []
        partitions = len(node.hw.disks)
        wanted = {d.split("/")[-1] for d in args.devices}
        known = {d.name for d in node.hw.disks}
        for missing in sorted(wanted - known):
            ctx.err(f"lsblk: /dev/{missing}: not a block device\n")
        for i, disk in enumerate(node.hw.disks):
            if wanted and disk.name not in wanted:
                continue
            rows.append((disk.name, 259, i, util_linux_size(disk.size_bytes), "disk", ""))
            if args.nodeps:
                continue
            if disk.mountpoint == "/":
                rows.append((f"├─{disk.name}p1", 259, partitions, "512M", "part", "/boot/efi"))
                rows.append((f"└─{disk.name}p2", 259, partitions + 1, util_linux_size(disk.size_bytes - 537_919_488),
                             "part", "/"))
                partitions += 2
            elif raid is not None and disk.name in raid.members:
                total = raid.member_bytes * len(raid.members)
                rows.append((f"└─{raid.device.split('/')[-1]}", 9, 0, util_linux_size(total), "raid0", raid.mountpoint))
        if not rows:
            return 32 if wanted else 0
        width = max(len("NAME"), max(len(r[0]) for r in rows))
        ctx.outln(f"{'NAME':<{width}} MAJ:MIN RM   SIZE RO TYPE  MOUNTPOINTS")
        for name, major, minor, size, kind, mount in rows:
            ctx.outln(f"{name:<{width}} {major:>3}:{minor:<3}  0 {size:>6}  0 {kind:<5} {mount}")
        return 0


# -- iostat, vmstat -----------------------------------------------------------------------------------

IOSTAT_HEAD = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm "
               "w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")


def _column_edges(header: str) -> list[int]:
    edges, pos = [], 0
    for token in header.split()[1:]:
        pos = header.index(token, pos) + len(token)
        edges.append(pos)
    return edges


def _device_load(ctx: Context, node: Node, device: str, sample: int) -> list[float]:
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
    section = SECTION

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
        interval = int(numbers[0]) if numbers else 0
        count = int(numbers[1]) if len(numbers) > 1 else (1 if not interval else 1_000)
        count = min(count, 1_000)
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
                count: int) -> Generator[float, None, int]:
        node = ctx.host
        ctx.outln(f"Linux {ctx.cluster.versions.kernel} ({node.name}) \t{ctx.clock.now():%m/%d/%y} \t_x86_64_\t"
                  f"({node.cpu.count} CPU)")
        ctx.outln()
        first = 1 if args.y else 0
        for n in range(first, first + count):
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
                        for value, edge in zip(_device_load(ctx, node, dev, n), edges):
                            text = f"{value:.2f}"
                            row += " " * max(1, edge - len(row) - len(text)) + text
                        ctx.outln(row)
                else:
                    ctx.outln("Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn"
                              "    kB_dscd")
                    uptime = ctx.clock.elapsed - boot_offset(node)
                    for dev in devices:
                        v = _device_load(ctx, node, dev, n)
                        span = uptime if n == 0 else max(1, interval)
                        ctx.outln(f"{dev:<12} {v[0] + v[6]:>9.2f} {v[1]:>12.2f} {v[7]:>12.2f} {0.0:>12.2f} "
                                  f"{int(v[1] * span):>10} {int(v[7] * span):>10} {0:>10}")
                ctx.outln()
        return 0


class Vmstat(ParsedCommand):
    name = "vmstat"
    summary = "report virtual memory statistics"
    section = SECTION

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
        count = numbers[1] if len(numbers) > 1 else (1 if not delay else 1_000)
        if delay == 0:
            count = 1
        return self._lines(ctx, delay, min(count, 1_000), (args.unit or "k"))

    def _lines(self, ctx: Context, delay: int, count: int, unit: str) -> Generator[float, None, int]:
        node = ctx.host
        div = 1024 if unit in ("m", "M") else 1
        ctx.outln("procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----")
        ctx.outln(" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st")
        for n in range(count):
            if n:
                yield float(delay)
            procs = processes(ctx.cluster, node)
            mem = memory(ctx.cluster, node, procs)
            running = sum(1 for p in procs if p.state.startswith("R"))
            blocked = sum(1 for p in procs if p.state.startswith("D"))
            r = rng(ctx.cluster.seed, node.name, "vmstat", n, int(ctx.clock.elapsed))
            us, sy, wa, idle = cpu_split(ctx.cluster, node, n, procs)
            loads = [_device_load(ctx, node, d.name, n) for d in node.hw.disks]
            bi, bo = int(sum(v[1] for v in loads)), int(sum(v[7] for v in loads))
            irq = int(4000 + running * 900 + r.uniform(0, 800))
            cs = int(6000 + running * 2400 + r.uniform(0, 2000))
            ctx.outln(f"{running:>2} {blocked:>2} {0:>6} {mem.free // div:>6} {mem.buffers // div:>6} "
                      f"{mem.cached // div:>6} {0:>4} {0:>4} {bi:>5} {bo:>5} {irq:>4} {cs:>4} {round(us):>2} "
                      f"{round(sy):>2} {round(idle):>2} {round(wa):>2} {0:>2}")
        return 0


# -- lfs ----------------------------------------------------------------------------------------------------


class Lfs(RawCommand):
    name = "lfs"
    summary = "Lustre client utility: df, check servers"
    section = SECTION
    add_help_flag = False
    description = ("lfs df [-h] [-i] [path] prints each MDT and OST of the filesystem and the summary;\n"
                   "lfs check servers|osts|mds reports whether the client's connections are active.")
    notes = "Supported: lfs df [-h] [-i] [path], lfs check servers|osts|mds."

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        fs = ctx.cluster.storage
        if not words or words[0] in ("help", "-h", "--help"):
            ctx.out("Usage: lfs [CMD]\nlfs commands used here: df, check\n")
            return 0 if words else 1
        cmd, rest = words[0], words[1:]
        if cmd == "df":
            human = any(w in ("-h", "--human-readable") for w in rest)
            inodes = any(w in ("-i", "--inodes") for w in rest)
            paths = [w for w in rest if not w.startswith("-")]
            bad = [w for w in rest if w.startswith("-") and w not in ("-h", "--human-readable", "-i", "--inodes")]
            if bad:
                raise ctx.fail(f"lfs df: unrecognized option '{bad[0]}'\nusage: df [--inodes|-i] "
                               "[--human-readable|-h] [--lazy|-l] [--pool|-p <fsname>[.<pool>]] [path]", 22)
            for path in paths:
                full = ctx.fs.abspath(path)
                if not (full == fs.mountpoint or full.startswith(fs.mountpoint + "/")):
                    raise ctx.fail(f"lfs df: {path} isn't mounted on lustre", 19)
            self._df(ctx, human, inodes)
            return 0
        if cmd == "check":
            what = rest[0] if rest else ""
            if what not in ("servers", "osts", "mds", "mgts"):
                raise ctx.fail("lfs check: missing target type\nusage: check <mgts|osts|mdts|all>", 22)
            tag = f"ffff{rng(ctx.cluster.seed, ctx.host.name, 'sb').getrandbits(48):012x}"
            for t in fs.targets:
                kind = "mdc" if t.kind == "MDT" else "osc"
                if what == "servers" or (what == "osts" and kind == "osc") or (what == "mds" and kind == "mdc"):
                    ctx.outln(f"{t.name}-{kind}-{tag} active.")
            if what in ("servers", "mgts"):
                ctx.outln(f"MGC{fs.mgs_nid} active.")
            return 0
        raise ctx.fail(f"lfs: unknown command '{cmd}'\ntry 'lfs help' for more information", 1)

    def _df(self, ctx: Context, human: bool, inodes: bool) -> None:
        fs = ctx.cluster.storage
        mp = fs.mountpoint

        def cell(kib: int) -> str:
            return lustre_size(kib) if human else str(kib)

        if inodes:
            ctx.outln(f"{'UUID':<20}{'Inodes':>12}{'IUsed':>12}{'IFree':>12} IUse% Mounted on")
        else:
            ctx.outln(f"{'UUID':<20}{'bytes' if human else '1K-blocks':>12}{'Used':>12}{'Available':>12} Use% "
                      "Mounted on")
        totals = [0, 0, 0]
        for t in fs.targets:
            index = int(t.name[-4:], 16)
            kind = "MDT" if t.kind == "MDT" else "OST"
            if inodes:
                total = t.size_kib // (2 if kind == "MDT" else 512)
                used = int(total * t.used_kib / max(1, t.size_kib))
                vals = [total, used, total - used]
            else:
                vals = [t.size_kib, t.used_kib, t.size_kib - t.used_kib]
            if (kind == "OST") != inodes:
                totals = [a + b for a, b in zip(totals, vals)]
            pct = math.ceil(100 * vals[1] / max(1, vals[0]))
            name = f"{t.name}_UUID"
            ctx.outln(f"{name:<20}{cell(vals[0]) if not inodes else vals[0]:>12}"
                      f"{cell(vals[1]) if not inodes else vals[1]:>12}{cell(vals[2]) if not inodes else vals[2]:>12}"
                      f"{pct:>4}% {mp}[{kind}:{index}]")
        ctx.outln()
        pct = math.ceil(100 * totals[1] / max(1, totals[0]))
        cells = [cell(v) if not inodes else str(v) for v in totals]
        ctx.outln(f"{'filesystem_summary:':<20}{cells[0]:>12}{cells[1]:>12}{cells[2]:>12}{pct:>4}% {mp}")
        ctx.outln()


def commands() -> list[Command]:
    return [Df(), MountCmd(), Lsblk(), Iostat(), Vmstat(), Lfs()]
