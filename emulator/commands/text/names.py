"""basename and dirname: the last component of a file name, or all before it."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION


class Basename(RawCommand):
    name = "basename"
    summary = "strip directory (and a suffix) from a file name"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if not words:
            raise ctx.fail("basename: missing operand\nTry 'basename --help' for more information.", 1)
        name = words[0].rstrip("/").rsplit("/", 1)[-1] or ("/" if words[0].startswith("/") else "")
        if len(words) > 1 and name != words[1] and name.endswith(words[1]):
            name = name[: -len(words[1])]
        ctx.outln(name)
        return 0


class Dirname(RawCommand):
    name = "dirname"
    summary = "strip the last component from a file name"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        if len(ctx.argv) < 2:
            raise ctx.fail("dirname: missing operand\nTry 'dirname --help' for more information.", 1)
        for word in ctx.argv[1:]:
            stripped = word.rstrip("/")
            if "/" not in stripped:
                ctx.outln("/" if word.startswith("/") else ".")
            else:
                ctx.outln(stripped.rsplit("/", 1)[0].rstrip("/") or "/")
        return 0
