"""find: the files under a directory that pass every test, each printed with a newline or a null character.

Tests: ``-name``, ``-iname``, ``-path``, ``-type f|d``, ``-maxdepth``, ``-mindepth``; actions:
``-print`` (the default) and ``-print0``.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections import deque

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION, flag_named
from emulator.commands.kit.spec import Flag
from emulator.limits import WALK_LIMIT, limit_reached
from emulator.vfs import Dir, File, FsError, TreeTooLarge


class Find(RawCommand):
    name = "find"
    summary = "search for files in a directory tree (-name, -iname, -type f|d, -maxdepth, -mindepth)"
    section = SECTION
    synopsis = "[STARTING-POINT...] [EXPRESSION]"
    flags = (
        Flag("-name", "", "PATTERN", "the base of the file name matches the shell PATTERN"),
        Flag("-iname", "", "PATTERN", "like -name, but the match is case insensitive"),
        Flag("-path", "", "PATTERN", "the file name as printed matches the shell PATTERN"),
        Flag("-type", "", "f|d", "the file is a regular file (f) or a directory (d)"),
        Flag("-maxdepth", "", "LEVELS", "descend at most LEVELS levels below the starting points"),
        Flag("-mindepth", "", "LEVELS", "apply no tests or actions at levels less than LEVELS"),
        Flag("-print", "", "", "print the file name and a newline (the default action)"),
        Flag("-print0", "", "", "print the file name and a null character"),
        Flag("", "--help", "", "display this help and exit"),
    )
    notes = ("The default starting point is the current directory. Every test must pass (an implicit -a);\n"
             "the operators ( ) ! -o and -not are not supported, and -print and -print0 act after the tests.")

    def execute(self, ctx: Context) -> Outcome:
        words = deque(ctx.argv[1:])
        roots: list[str] = []
        while words and not words[0].startswith("-") and words[0] not in ("(", "!"):
            roots.append(words.popleft())
        tests: list[tuple[str, str]] = []
        ends: list[str] = []
        maxdepth, mindepth = 10_000, 0
        while words:
            word = words.popleft()
            flag = flag_named(self.flags, word)
            if flag is None:
                raise ctx.fail(f"find: unknown predicate `{word}'", 1)
            if flag.long == "--help":
                ctx.out(self.help_text())
                return 0
            if not flag.value:
                ends.append("\0" if word == "-print0" else "\n")
                continue
            if not words:
                raise ctx.fail(f"find: missing argument to `{word}'", 1)
            value = words.popleft()
            if word in ("-maxdepth", "-mindepth"):
                if not value.isdecimal():
                    raise ctx.fail(f"find: Expected a positive decimal integer argument to {word}, but got ‘{value}’", 1)
                if word == "-maxdepth":
                    maxdepth = int(value)
                else:
                    mindepth = int(value)
            elif word == "-type" and value not in ("f", "d"):
                raise ctx.fail(f"find: Unknown argument to -type: {value}", 1)
            else:
                tests.append((word, value))
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
            try:
                for path, node in fs.walk(base):
                    rel = path[len(base):]
                    depth = rel.count("/")
                    if depth > maxdepth or depth < mindepth:
                        continue
                    shown = root.rstrip("/") + rel if root != "/" else (path if rel else "/")
                    if all(_find_test(flag, value, shown, node) for flag, value in tests):
                        ctx.out("".join(shown + end for end in ends or ["\n"]))
            except TreeTooLarge:
                ctx.err(limit_reached(f"find: ‘{root}’: stopped after {WALK_LIMIT} entries") + "\n")
                status = 1
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
