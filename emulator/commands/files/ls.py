"""ls: directory listings, in columns on a terminal and one name a line in a pipe, or long (-l)."""

from __future__ import annotations

import argparse
import math
import posixpath
from datetime import timedelta

from emulator.cluster.accounts import uid_of
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, columns
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import coreutils_size
from emulator.limits import LIST_LIMIT, limit_reached
from emulator.vfs import Dir, File, FsError


def _mode_string(node: File | Dir) -> str:
    kind = "d" if isinstance(node, Dir) else "-"
    bits = ""
    for shift in (6, 3, 0):
        part = (node.mode >> shift) & 7
        bits += ("r" if part & 4 else "-") + ("w" if part & 2 else "-") + ("x" if part & 1 else "-")
    if node.mode & 0o1000:
        bits = bits[:-1] + ("t" if bits[-1] == "x" else "T")
    return kind + bits


class Ls(CoreutilsErrors, Intermixed):
    name = "ls"
    reads_only = True
    summary = "list directory contents (-l -a -A -h -1 -d -r -t -S -R)"
    section = SECTION
    add_help_flag = False  # -h means --human-readable

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("-l", dest="long", action="store_true", help="use a long listing format")
        parser.add_argument("-a", "--all", action="store_true", help="do not ignore entries starting with .")
        parser.add_argument("-A", "--almost-all", action="store_true", help="do not list implied . and ..")
        parser.add_argument("-h", "--human-readable", action="store_true", help="with -l, print sizes like 1K 234M 2G")
        parser.add_argument("-1", dest="one", action="store_true", help="list one file per line")
        parser.add_argument("-n", "--numeric-uid-gid", dest="numeric", action="store_true",
                            help="like -l, but list numeric user and group IDs")
        parser.add_argument("-d", "--directory", action="store_true", help="list directories themselves")
        parser.add_argument("-r", "--reverse", action="store_true", help="reverse order while sorting")
        parser.add_argument("-t", dest="by_time", action="store_true", help="sort by time, newest first")
        parser.add_argument("-S", dest="by_size", action="store_true", help="sort by file size, largest first")
        parser.add_argument("-R", "--recursive", action="store_true", help="list subdirectories recursively")
        parser.add_argument("-F", "--classify", action="store_true", help="append indicator (one of */=>@|) to entries")
        parser.add_argument("-C", dest="columns", action="store_true", help="list entries by columns")
        parser.add_argument("--color", nargs="?", const="always", metavar="WHEN", help="accepted; no colors")
        parser.add_argument("paths", nargs="*", metavar="FILE", help="files or directories (default: .)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        args.long = args.long or args.numeric
        fs = ctx.fs
        paths = args.paths or ["."]
        status = 0
        files: list[tuple[str, File | Dir]] = []
        dirs: list[tuple[str, Dir]] = []
        for path in paths:
            try:
                node = fs.lookup(path)
            except FsError as exc:
                ctx.err(f"ls: cannot access '{path}': {exc.strerror}\n")
                status = 2
                continue
            if isinstance(node, Dir) and not args.directory:
                dirs.append((path, node))
            else:
                files.append((path, node))
        blocks: list[list[str]] = []
        if files:
            blocks.append(self._render(ctx, args, self._sorted(args, files), with_total=False))
        show_names = len(paths) > 1 or args.recursive
        queue = list(dirs)
        count = 0
        while queue and count < LIST_LIMIT:
            count += 1
            path, node = queue.pop(0)
            entries = [(name, child) for name, child in node.entries().items()
                       if args.all or args.almost_all or not name.startswith(".")]
            if args.all:
                try:
                    parent = fs.lookup(posixpath.dirname(fs.abspath(path)))
                except FsError:
                    parent = node
                entries = [(".", node), ("..", parent), *entries]
            entries = self._sorted(args, entries)
            lines = [f"{path}:"] if show_names else []
            lines += self._render(ctx, args, entries, with_total=True)
            blocks.append(lines)
            if args.recursive:
                subdirs = [(posixpath.join(path, name), child) for name, child in entries
                           if isinstance(child, Dir) and name not in (".", "..")]
                queue[0:0] = subdirs
        out = []
        for i, block in enumerate(blocks):
            if i:
                out.append("")
            out += block
        ctx.out("".join(line + "\n" for line in out))
        if queue:
            ctx.err(limit_reached(f"ls: stopped after listing {LIST_LIMIT} directories") + "\n")
            return 2
        return status

    @staticmethod
    def _sorted(args: argparse.Namespace, entries: list) -> list:
        if args.by_time:
            entries = sorted(entries, key=lambda e: (-e[1].modified(), e[0]))
        elif args.by_size:
            entries = sorted(entries, key=lambda e: (-(4096 if isinstance(e[1], Dir) else e[1].size()), e[0]))
        else:
            entries = sorted(entries, key=lambda e: e[0])
        return entries[::-1] if args.reverse else entries

    def _render(self, ctx: Context, args: argparse.Namespace, entries: list, with_total: bool) -> list[str]:
        if args.classify:
            entries = [(name + ("/" if isinstance(node, Dir) else "*" if isinstance(node, File) and node.mode & 0o111
                                else ""), node) for name, node in entries]
        if not args.long:
            names = [name for name, _ in entries]
            if args.one or not (ctx.isatty or args.columns):
                return names
            return columns(names)
        rows = []
        total = 0
        for name, node in entries:
            size = 4096 if isinstance(node, Dir) else node.size()
            total += math.ceil(size / 4096) * 4 if size else 0
            links = 2 + sum(isinstance(c, Dir) for c in node.children.values()) if isinstance(node, Dir) \
                and node.populate is None else (2 if isinstance(node, Dir) else 1)
            when = ctx.clock.at(node.modified())
            recent = timedelta(0) <= ctx.clock.now() - when < timedelta(days=182)
            stamp = when.strftime("%b %e %H:%M") if recent else when.strftime("%b %e  %Y")
            size_text = coreutils_size(size) if args.human_readable else str(size)
            owner, group = (str(uid_of(node.owner)), str(uid_of(node.group))) if args.numeric else (node.owner, node.group)
            rows.append((_mode_string(node), str(links), owner, group, size_text, stamp, name))
        if not rows:
            return ["total 0"] if with_total else []
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = [f"total {coreutils_size(total * 1024) if args.human_readable else total}"] if with_total else []
        for mode, link_count, owner, group, size_text, stamp, name in rows:
            align = ">" if args.numeric else "<"
            lines.append(f"{mode} {link_count:>{widths[1]}} {owner:{align}{widths[2]}} {group:{align}{widths[3]}} "
                         f"{size_text:>{widths[4]}} {stamp} {name}")
        return lines
