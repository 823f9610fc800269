"""What a host has mounted, with sizes from the model, and ``mount`` listing it.

The root NVMe, the local RAID, tmpfs and the parallel filesystem's client
mount; ``df`` reads the same list.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.cluster.processes import running_jobs
from emulator.commands.kit.command import Context, Outcome, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser


@dataclass(frozen=True)
class Mount:
    """One mounted filesystem: what, where, its type and options, and its sizes in KiB."""

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


class MountCmd(ParsedCommand):
    name = "mount"
    summary = "show mounted filesystems"
    section = "Host"

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
