"""find: the files under a directory that pass every test (-name, -iname, -path, -type, -maxdepth, -mindepth)."""

from __future__ import annotations

import fnmatch
import posixpath

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION
from emulator.vfs import Dir, File, FsError


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
