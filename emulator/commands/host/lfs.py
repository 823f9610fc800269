"""``lfs`` (the Lustre client utility): ``lfs df`` over the filesystem's targets and ``lfs check``; ``quota``,
``getstripe`` and ``project`` are in :mod:`emulator.commands.host.lfs_reports`."""

from __future__ import annotations

import math

from emulator.cluster.lustre_client import client_tag
from emulator.commands.host.lfs_reports import lfs_getstripe, lfs_project, lfs_quota
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.commands.kit.units import lustre_size

#: The options of ``lfs df``.
DF_FLAGS = (
    Flag("-h", "--human-readable", "", "print sizes in human readable format"),
    Flag("-i", "--inodes", "", "list inode usage instead of block usage"),
)
HUMAN, INODES = DF_FLAGS
DF_OPTIONS = frozenset(s for flag in DF_FLAGS for s in flag.strings())


class Lfs(RawCommand):
    name = "lfs"
    summary = "Lustre client utility: df, quota, getstripe, project, check servers"
    section = "Host"
    flags = (Flag("-h", "--help", "", "list the commands"),)
    words = ("df", "quota", "getstripe", "project", "check", "help")
    synopsis = ("df [-h] [-i] [path] | quota [-hv] [-u user|-g group|-p projid] <filesystem> | "
                "getstripe [-d] [-i] [-c] <path>... | project [-d] <path>... | check servers|osts|mds|mgts | help")
    description = ("lfs df [-h] [-i] [path] prints each MDT and OST of the filesystem and the summary;\n"
                   "lfs quota [-hv] [-u user|-g group|-p projid] /lustre prints usage and limits ('*': over the limit);\n"
                   "  -v adds each MDT's and OST's usage and the grant the quota master gave it ('*': grant used up);\n"
                   "lfs getstripe [-d] [-i] [-c] path prints a file's layout (the OSTs holding its objects);\n"
                   "lfs project [-d] path prints the project id a file or directory carries;\n"
                   "lfs check servers|osts|mds reports whether the client's connections are active.")
    notes = ("Supported: lfs df [-h] [-i] [path], lfs quota [-hv] [-u|-g|-p id] <fs>, lfs getstripe [-d] [-i] [-c], "
             "lfs project [-d], lfs check servers|osts|mds.")

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        fs = ctx.cluster.storage
        if not words or words[0] in ("help", "-h", "--help"):
            ctx.out("Usage: lfs [CMD]\nlfs commands used here: df, quota, getstripe, project, check\n")
            return 0 if words else 1
        cmd, rest = words[0], words[1:]
        if cmd == "df":
            human = any(w in HUMAN.strings() for w in rest)
            inodes = any(w in INODES.strings() for w in rest)
            paths = [w for w in rest if not w.startswith("-")]
            bad = [w for w in rest if w.startswith("-") and w not in DF_OPTIONS]
            if bad:
                raise ctx.fail(f"lfs df: unrecognized option '{bad[0]}'\nusage: df [--inodes|-i] "
                               "[--human-readable|-h] [--lazy|-l] [--pool|-p <fsname>[.<pool>]] [path]", 22)
            for path in paths:
                full = ctx.fs.abspath(path)
                if not (full == fs.mountpoint or full.startswith(fs.mountpoint + "/")):
                    raise ctx.fail(f"lfs df: {path} isn't mounted on lustre", 19)
            self._df(ctx, human, inodes)
            return 0
        if cmd == "quota":
            return lfs_quota(ctx, rest)
        if cmd == "getstripe":
            return lfs_getstripe(ctx, rest)
        if cmd == "project":
            return lfs_project(ctx, rest)
        if cmd == "check":
            what = rest[0] if rest else ""
            if what not in ("servers", "osts", "mds", "mgts"):
                raise ctx.fail("lfs check: missing target type\nusage: check <mgts|osts|mdts|all>", 22)
            tag = client_tag(ctx.cluster, ctx.host)
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

        def row(name: str, cells: list[str], use: str, where: str) -> str:
            # lfs.c showdf(): UUF" "CSF" "CSF" "CSF" "RSF" %-s (%-20s %11s %11s %11s %4s %s); a wider number
            # pushes the next column right instead of running into it.
            return f"{name:<20} {cells[0]:>11} {cells[1]:>11} {cells[2]:>11} {use:>4} {where}"

        if inodes:
            ctx.outln(row("UUID", ["Inodes", "IUsed", "IFree"], "IUse%", "Mounted on"))
        else:
            ctx.outln(row("UUID", ["bytes" if human else "1K-blocks", "Used", "Available"], "Use%", "Mounted on"))
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
            ctx.outln(row(name, [str(v) if inodes else cell(v) for v in vals], f"{pct}%", f"{mp}[{kind}:{index}]"))
        ctx.outln()
        pct = math.ceil(100 * totals[1] / max(1, totals[0]))
        cells = [cell(v) if not inodes else str(v) for v in totals]
        ctx.outln(row("filesystem_summary:", cells, f"{pct}%", mp))
        ctx.outln()
