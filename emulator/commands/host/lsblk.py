"""``lsblk`` (util-linux): the host's NVMe disks, their partitions and the local RAID."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import util_linux_size
from emulator.commands.kit.usage import getopt_error


class Lsblk(ParsedCommand):
    name = "lsblk"
    summary = "list block devices"
    section = "Host"

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
