"""df, mount, iostat, vmstat and lfs through the shell: sizes and load from the model."""

from __future__ import annotations

import re

from emulator.commands.host.lfs import DF_FLAGS, Lfs
from tests.support import on, run


def test_df_h_shows_lustre_from_the_targets():
    out = run(on("node01"), "df -h")
    assert out.splitlines()[0].split() == ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted", "on"]
    assert re.search(r"^10\.30\.0\.10@o2ib:/lustre +3\.8P +2\.\dP +1\.\dP +6\d% /lustre$", out, re.M)
    assert re.search(r"^/dev/md0 .* /raid$", out, re.M)


def test_mount_lustre_line():
    out = run(on("node01"), "mount -t lustre")
    assert out.startswith("10.30.0.10@o2ib:/lustre on /lustre type lustre (rw,checksum,flock,")


def test_lfs_df_lists_every_target_and_summary():
    s = on("node01")
    out = run(s, "lfs df -h")
    assert out.startswith("UUID                       bytes        Used   Available Use% Mounted on\n")
    assert out.count("[OST:") == 8 and "lustre-MDT0000_UUID" in out
    assert re.search(r"^filesystem_summary: +3\.8P ", out, re.M)


def test_iostat_x_columns_line_up():
    out = run(on("node01"), "iostat -x")
    lines = out.splitlines()
    head = next(line for line in lines if line.startswith("Device"))
    md0 = next(line for line in lines if line.startswith("md0"))
    assert head.endswith("aqu-sz  %util") and len(md0) == len(head)


def test_iostat_interval_streams_reports():
    s = on("node01")
    run_ = s.run("iostat -x 1 3")
    chunks = []
    while (chunk := run_.step()) is not None:
        chunks.append(chunk.text())
    assert "".join(chunks).count("avg-cpu:") == 3


def test_vmstat_header():
    out = run(on("node01"), "vmstat")
    assert out.splitlines()[:2] == [
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
    ]


def test_lsblk_shows_the_root_disk_and_the_raid_members():
    out = run(on("node01"), "lsblk")
    lines = out.splitlines()
    assert lines[0] == "NAME        MAJ:MIN RM   SIZE RO TYPE  MOUNTPOINTS"
    assert lines[2] == "├─nvme0n1p1 259:10   0   512M  0 part  /boot/efi"
    assert "└─md0         9:0    0  27.9T  0 raid0 /raid" in lines
    assert on("node01").execute("lsblk /dev/sdz") == ("lsblk: /dev/sdz: not a block device\n", 32)


def test_every_declared_lfs_flag_is_accepted():
    s = on("node01")
    for flag in Lfs.flags:
        for spelling in flag.strings():
            assert run(s, f"lfs {spelling}").startswith("Usage: lfs")
    for flag in DF_FLAGS:
        for spelling in flag.strings():
            assert run(s, f"lfs df {spelling} /lustre").startswith("UUID")
