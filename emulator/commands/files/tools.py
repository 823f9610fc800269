"""File commands over the virtual filesystem: ls, cat, less/more, tee, touch, mkdir, rm.

Errors read like coreutils' (``ls: cannot access '/nope': No such file or
directory``), with the errno text from :func:`os.strerror`.
"""

from __future__ import annotations

import argparse
import errno
import fnmatch
import math
import posixpath
from collections.abc import Callable
from datetime import timedelta

from emulator.cluster.accounts import uid_of
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.coreio import (
    SECTION,
    CoreutilsErrors,
    Intermixed,
    columns,
    coreutils_error,
    join_lines,
    read_input,
    split_lines,
)
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import coreutils_size
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
        while queue and count < 1_000:
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


class Cat(CoreutilsErrors, Intermixed):
    name = "cat"
    filters_lines = True
    reads_only = True
    summary = "print files (-n: number lines)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--number", action="store_true", help="number all output lines")
        parser.add_argument("-A", "--show-all", action="store_true", help="show tabs as ^I and line ends as $")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files to print (- or none: stdin)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        number = 0
        for path in args.files or ["-"]:
            try:
                text = read_input(ctx, path)
            except FsError as exc:
                ctx.err(exc.message("cat") + "\n")
                status = 1
                continue
            if args.show_all:
                text = "".join(line.replace("\t", "^I") + "$\n" for line in split_lines(text))
            if args.number:
                lines = []
                for line in split_lines(text):
                    number += 1
                    lines.append(f"{number:6d}\t{line}")
                text = join_lines(lines)
            ctx.out(text)
        return status


class Less(RawCommand):
    name = "less"
    summary = "page through a file (here: print it whole)"
    section = SECTION
    aliases = ("more",)

    def execute(self, ctx: Context) -> Outcome:
        paths = [w for w in ctx.argv[1:] if not w.startswith("-") or w == "-"]
        if not paths:
            if not ctx.stdin:
                raise ctx.fail("Missing filename (\"less --help\" for help)", 1)
            ctx.out(ctx.stdin)
            return 0
        status = 0
        for path in paths:
            try:
                ctx.out(read_input(ctx, path))
            except FsError as exc:
                if exc.errno == errno.EISDIR:
                    ctx.err(f"{path} is a directory\n")
                else:
                    ctx.err(f"{path}: {exc.strerror}\n")
                status = 1
        return status


class Tee(CoreutilsErrors, Intermixed):
    name = "tee"
    summary = "copy stdin to stdout and to files (-a: append)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-a", "--append", action="store_true", help="append to the given files")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files to write")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        for path in args.files:
            try:
                ctx.fs.write(path, ctx.stdin, append=args.append)
            except FsError as exc:
                ctx.err(exc.message("tee") + "\n")
                status = 1
        ctx.out(ctx.stdin)
        return status


class Touch(Intermixed):
    name = "touch"
    summary = "create empty files or update their times"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE", help="files to touch")

    def usage_error(self, message: str) -> str:
        if "required" in message:
            return "touch: missing file operand\nTry 'touch --help' for more information."
        return coreutils_error(self.name, message)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        for path in args.files:
            try:
                ctx.fs.write(path, "", append=True)
            except FsError as exc:
                ctx.err(f"touch: cannot touch '{path}': {exc.strerror}\n")
                status = 1
        return status


class Mkdir(Intermixed):
    name = "mkdir"
    summary = "make directories (-p: parents as needed)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-p", "--parents", action="store_true", help="no error if existing, make parents")
        parser.add_argument("dirs", nargs="+", metavar="DIRECTORY", help="directories to create")

    def usage_error(self, message: str) -> str:
        if "required" in message:
            return "mkdir: missing operand\nTry 'mkdir --help' for more information."
        return coreutils_error(self.name, message)

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        for path in args.dirs:
            try:
                ctx.fs.mkdir(path, parents=args.parents)
            except FsError as exc:
                ctx.err(f"mkdir: cannot create directory '{path}': {exc.strerror}\n")
                status = 1
        return status


class Rm(CoreutilsErrors, Intermixed):
    name = "rm"
    summary = "remove files you created (-f: ignore missing ones)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--force", action="store_true", help="ignore nonexistent files")
        parser.add_argument("-r", "-R", "--recursive", action="store_true", help="accepted; directories are kept")
        parser.add_argument("files", nargs="*", metavar="FILE", help="files to remove")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if not args.files and not args.force:
            raise ctx.fail("rm: missing operand\nTry 'rm --help' for more information.", 1)
        status = 0
        for path in args.files:
            try:
                ctx.fs.remove(path)
            except FsError as exc:
                if exc.errno == errno.ENOENT and args.force:
                    continue
                verb = "cannot remove"
                ctx.err(f"rm: {verb} '{path}': {exc.strerror}\n")
                status = 1
        return status


class Cp(CoreutilsErrors, Intermixed):
    name = "cp"
    summary = "copy a file (cp SOURCE DEST, or files into a directory)"
    section = SECTION
    usage_status = 1
    move = False

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-r", "-R", "-a", dest="recursive", action="store_true", help="accepted; files only")
        parser.add_argument("-f", "--force", action="store_true", help="accepted")
        parser.add_argument("-v", "--verbose", action="store_true", help="explain what is being done")
        parser.add_argument("paths", nargs="*", metavar="SOURCE DEST", help="source files, then the destination")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fs = ctx.fs
        if not args.paths:
            raise ctx.fail(f"{self.name}: missing file operand\nTry '{self.name} --help' for more information.", 1)
        if len(args.paths) == 1:
            raise ctx.fail(f"{self.name}: missing destination file operand after '{args.paths[0]}'\n"
                           f"Try '{self.name} --help' for more information.", 1)
        *sources, dest = args.paths
        into_dir = fs.isdir(dest)
        if len(sources) > 1 and not into_dir:
            raise ctx.fail(f"{self.name}: target '{dest}' is not a directory", 1)
        status = 0
        for source in sources:
            target = posixpath.join(dest, posixpath.basename(source.rstrip("/"))) if into_dir else dest
            try:
                if fs.isdir(source):
                    raise FsError(errno.EISDIR, source)
                text = fs.read(source)
                fs.write(target, text)
                if self.move:
                    fs.remove(source)
            except FsError as exc:
                if exc.errno == errno.EISDIR and exc.path == source:
                    ctx.err(f"{self.name}: -r not specified; omitting directory '{source}'\n" if not self.move else
                            f"mv: cannot move '{source}': Is a directory\n")
                elif exc.path == source:
                    verb = "cannot stat" if exc.errno == errno.ENOENT else "cannot open"
                    ctx.err(f"{self.name}: {verb} '{source}': {exc.strerror}\n")
                else:
                    ctx.err(f"{self.name}: cannot create regular file '{target}': {exc.strerror}\n")
                status = 1
                continue
            if args.verbose:
                ctx.outln(f"'{source}' -> '{target}'" if not self.move else f"renamed '{source}' -> '{target}'")
        return status


class Mv(Cp):
    name = "mv"
    summary = "move (rename) a file you created"
    move = True


class Find(RawCommand):
    name = "find"
    summary = "search for files in a directory tree (-name, -iname, -type f|d, -maxdepth, -mindepth)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        roots: list[str] = []
        while words and not words[0].startswith("-") and words[0] not in ("(", "!"):
            roots.append(words.pop(0))
        tests: list[tuple[str, str]] = []
        maxdepth, mindepth = 10_000, 0
        while words:
            flag = words.pop(0)
            if flag in ("-print", "-print0"):
                continue
            if flag not in ("-name", "-iname", "-type", "-maxdepth", "-mindepth", "-path"):
                raise ctx.fail(f"find: unknown predicate `{flag}'", 1)
            if not words:
                raise ctx.fail(f"find: missing argument to `{flag}'", 1)
            value = words.pop(0)
            if flag in ("-maxdepth", "-mindepth"):
                if not value.isdecimal():
                    raise ctx.fail(f"find: Expected a positive decimal integer argument to {flag}, but got ‘{value}’", 1)
                if flag == "-maxdepth":
                    maxdepth = int(value)
                else:
                    mindepth = int(value)
            elif flag == "-type" and value not in ("f", "d"):
                raise ctx.fail(f"find: Unknown argument to -type: {value}", 1)
            else:
                tests.append((flag, value))
        status = 0
        fs = ctx.fs
        for root in roots or ["."]:
            try:
                fs.lookup(root)
            except FsError as exc:
                ctx.err(f"find: ‘{root}’: {exc.strerror}\n")
                status = 1
                continue
            base = fs.abspath(root)
            for path, node in fs.walk(base):
                rel = path[len(base):]
                depth = rel.count("/")
                if depth > maxdepth or depth < mindepth:
                    continue
                shown = root.rstrip("/") + rel if root != "/" else (path if rel else "/")
                if all(_find_test(flag, value, shown, node) for flag, value in tests):
                    ctx.outln(shown)
        return status


def _find_test(flag: str, value: str, path: str, node: File | Dir) -> bool:
    name = posixpath.basename(path) or path
    if flag == "-name":
        return fnmatch.fnmatchcase(name, value)
    if flag == "-iname":
        return fnmatch.fnmatchcase(name.lower(), value.lower())
    if flag == "-path":
        return fnmatch.fnmatchcase(path, value)
    return isinstance(node, Dir) == (value == "d")


class Du(CoreutilsErrors, Intermixed):
    name = "du"
    summary = "estimate file space usage (-s -h -a -c -d N)"
    section = SECTION
    add_help_flag = False  # -h means --human-readable

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("-s", "--summarize", action="store_true", help="display only a total for each argument")
        parser.add_argument("-h", "--human-readable", action="store_true", help="print sizes like 1K 234M 2G")
        parser.add_argument("-a", "--all", action="store_true", help="write counts for all files, not just directories")
        parser.add_argument("-c", "--total", action="store_true", help="produce a grand total")
        parser.add_argument("-d", "--max-depth", type=int, metavar="N", help="print totals only N levels deep")
        parser.add_argument("paths", nargs="*", metavar="FILE", help="files or directories (default: .)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fs = ctx.fs
        depth_limit = 0 if args.summarize else args.max_depth
        status = 0
        grand = 0
        lines: list[str] = []

        def show(kib: int, path: str) -> None:
            size = coreutils_size(kib * 1024) if args.human_readable else str(kib)
            lines.append(f"{size}\t{path}")

        for root in args.paths or ["."]:
            try:
                node = fs.lookup(root)
            except FsError as exc:
                ctx.err(f"du: cannot access '{root}': {exc.strerror}\n")
                status = 1
                continue
            grand += self._walk(node, root.rstrip("/") or "/", 0, depth_limit, args.all, show)
        if args.total:
            show(grand, "total")
        ctx.out(join_lines(lines))
        return status

    def _walk(self, node: File | Dir, path: str, depth: int, limit: int | None, every: bool,
              show: Callable[[int, str], None]) -> int:
        """KiB used under ``node`` (4 KiB blocks), printing directories (and files with -a) within the depth."""
        within = limit is None or depth <= limit
        if isinstance(node, File):
            kib = math.ceil(node.size() / 4096) * 4
            if (every or depth == 0) and within:
                show(kib, path)
            return kib
        total = 4
        for name, child in sorted(node.entries().items()):
            total += self._walk(child, f"{path}/{name}" if path != "/" else f"/{name}", depth + 1, limit, every, show)
        if within:
            show(total, path)
        return total


class Editor(RawCommand):
    name = "vim"
    summary = "(not available) interactive editors cannot run in this terminal"
    section = SECTION
    aliases = ("vi", "nano", "emacs")

    def execute(self, ctx: Context) -> Outcome:
        raise ctx.fail(f"{ctx.argv[0]}: interactive editors are not available in this terminal; "
                       "read files with cat or less, and write them with echo, printf, tee or sed -i", 1)


def commands() -> list[Command]:
    return [Ls(), Cat(), Less(), Tee(), Touch(), Mkdir(), Rm(), Cp(), Mv(), Find(), Du(), Editor()]
