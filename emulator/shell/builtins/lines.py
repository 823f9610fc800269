"""What the shell remembers and runs for the learner: ``history``, ``source`` (a file's lines), ``alias`` and ``unalias``."""

from __future__ import annotations

import shlex

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.shell.lexer import ShellSyntaxError

SECTION = "Shell"

#: The flags these builtins act on.
_CLEAR = Flag("-c", "", "", "clear the history")
_LIST = Flag("-p", "", "", "list the aliases (also what alias alone does)")
_ALL = Flag("-a", "", "", "remove every alias")


class History(RawCommand):
    name = "history"
    builtin = True
    directory = None
    summary = "show the lines entered in this session (history N: the last N; -c clears)"
    section = SECTION
    synopsis = "[-c] [N]"
    flags = (_CLEAR,)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        history = ctx.session.history
        if words[:1] == _CLEAR.strings():
            history.clear()
            return 0
        count = len(history)
        if words:
            if not words[0].isdecimal():
                raise ctx.fail(f"bash: history: {words[0]}: numeric argument required", 1)
            count = int(words[0])
        first = ctx.session.history_base + len(history) - min(count, len(history)) + 1
        for number, line in enumerate(history[len(history) - min(count, len(history)):], start=first):
            ctx.outln(f"{number:5d}  {line}")
        return 0


class Source(RawCommand):
    name = "source"
    builtin = True
    directory = None
    summary = "run the commands of a file in this shell (also: . FILE)"
    section = SECTION
    aliases = (".",)
    synopsis = "FILENAME [ARGUMENTS]"

    def execute(self, ctx: Context) -> Outcome:
        if len(ctx.argv) < 2:
            raise ctx.fail(f"bash: {ctx.argv[0]}: filename argument required\n"
                           f"{ctx.argv[0]}: usage: {ctx.argv[0]} filename [arguments]", 2)
        path = ctx.argv[1]
        try:
            text = ctx.fs.read(path)
        except Exception as exc:  # noqa: BLE001 - FsError: missing, a directory
            raise ctx.fail(f"bash: {path}: {getattr(exc, 'strerror', exc)}", 1) from None
        try:
            return (yield from ctx.shell.run_source(text, ctx))
        except ShellSyntaxError as exc:
            raise ctx.fail(f"bash: {path}: {exc.message}", 2) from None


class Alias(RawCommand):
    name = "alias"
    builtin = True
    directory = None
    summary = "define or list aliases (alias ll='ls -alF')"
    section = SECTION
    synopsis = "[-p] [NAME[=VALUE] ...]"
    flags = (_LIST,)

    def execute(self, ctx: Context) -> Outcome:
        aliases = ctx.shell.aliases
        words = [w for w in ctx.argv[1:] if w not in _LIST.strings()]
        if not words:
            for name in sorted(aliases):
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if eq:
                if not name or any(c in name for c in " /$`=\"'"):
                    ctx.err(f"bash: alias: `{name}': invalid alias name\n")
                    status = 1
                else:
                    aliases[name] = value
            elif name in aliases:
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            else:
                ctx.err(f"bash: alias: {name}: not found\n")
                status = 1
        return status


class Unalias(RawCommand):
    name = "unalias"
    builtin = True
    directory = None
    summary = "remove aliases (-a: all)"
    section = SECTION
    synopsis = "[-a] NAME [NAME ...]"
    flags = (_ALL,)

    def execute(self, ctx: Context) -> Outcome:
        aliases = ctx.shell.aliases
        if ctx.argv[1:2] == _ALL.strings():
            aliases.clear()
            return 0
        status = 0
        for name in ctx.argv[1:]:
            if aliases.pop(name, None) is None:
                ctx.err(f"bash: unalias: {name}: not found\n")
                status = 1
        return status
