"""The commands that change files: tee, touch, mkdir, rm, cp and mv.

Errors read like coreutils' (``rm: cannot remove '/x': No such file or directory``), with
the errno text from :func:`os.strerror`.
"""

from __future__ import annotations

import argparse
import errno
import posixpath

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, coreutils_error
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError


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
