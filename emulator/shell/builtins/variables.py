"""The shell's variables and options: ``export``, ``unset``, ``read`` and ``set``."""

from __future__ import annotations

import re
import shlex

from emulator.commands.kit.command import Context, Outcome, RawCommand

SECTION = "Shell"


class Export(RawCommand):
    name = "export"
    builtin = True
    directory = None
    summary = "set environment variables for later commands (export NAME=value)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = [w for w in ctx.argv[1:] if w not in ("--", "-p")]
        if not words:
            for name in sorted(ctx.shell.env):
                value = ctx.shell.env[name].replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                ctx.outln(f'declare -x {name}="{value}"')
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if not _NAME.match(name):
                ctx.err(f"bash: export: `{word}': not a valid identifier\n")
                status = 1
                continue
            ctx.shell.export(name, value if eq else None)
        return status


class Unset(RawCommand):
    name = "unset"
    builtin = True
    directory = None
    summary = "remove shell variables"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        status = 0
        for name in ctx.argv[1:]:
            if name in ("-v", "-f"):
                continue
            if not _NAME.match(name):
                ctx.err(f"bash: unset: `{name}': not a valid identifier\n")
                status = 1
            else:
                ctx.shell.unset(name)
        return status


class Read(RawCommand):
    name = "read"
    builtin = True
    directory = None
    summary = "read a line from standard input into variables (-r, -p PROMPT, -a ARRAY ignored)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        raw = False
        while words and words[0].startswith("-") and len(words[0]) > 1:
            flag = words.pop(0)
            if flag == "-r":
                raw = True
            elif flag in ("-p", "-t", "-d", "-n", "-u") and words:
                value = words.pop(0)
                if flag == "-p":
                    ctx.err(value)
            elif flag == "--":
                break
        for name in words:
            if not _NAME.match(name):
                raise ctx.fail(f"bash: read: `{name}': not a valid identifier", 1)
        line = self._next_line(ctx)
        if line is None:
            for name in words or ["REPLY"]:
                ctx.shell.set_var(name, "")
            return 1
        if not raw:
            line = re.sub(r"\\(.)", r"\1", line)
        names = words or ["REPLY"]
        if not words:
            ctx.shell.set_var("REPLY", line)
            return 0
        fields = line.split(None, len(names) - 1)
        for i, name in enumerate(names):
            ctx.shell.set_var(name, fields[i].strip() if i < len(fields) else "")
        return 0

    @staticmethod
    def _next_line(ctx: Context) -> str | None:
        inputs = ctx.shell.inputs
        if inputs and ctx.stdin is inputs[-1].rest:
            return inputs[-1].read_line()
        if not ctx.stdin:
            return None
        return ctx.stdin.split("\n", 1)[0]


class Set(RawCommand):
    name = "set"
    builtin = True
    directory = None
    summary = "list shell variables; options such as -e, -u, -x, -o pipefail are accepted and ignored"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if not words:
            variables = {**ctx.shell.env, **ctx.shell.vars}
            for name in sorted(variables):
                ctx.outln(f"{name}={shlex.quote(variables[name])}")
            return 0
        i = 0
        while i < len(words):
            word = words[i]
            if word in ("-o", "+o"):
                i += 1
                if i < len(words) and words[i] not in _SET_OPTIONS:
                    raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
            elif word[:1] in "-+" and len(word) > 1 and word != "--":
                for letter in word[1:]:
                    if letter == "o":
                        i += 1
                        if i < len(words) and words[i] not in _SET_OPTIONS:
                            raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
                    elif letter not in "abefhkmnptuvxBCHP":
                        raise ctx.fail(f"bash: set: {word[0]}{letter}: invalid option\n"
                                       "set: usage: set [-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]", 2)
            i += 1
        return 0


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_SET_OPTIONS = {"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand",
                "history", "ignoreeof", "interactive-comments", "keyword", "monitor", "noclobber", "noexec",
                "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix", "privileged",
                "verbose", "vi", "xtrace"}
