"""The shell's variables and options: ``export``, ``unset``, ``read`` and ``set``."""

from __future__ import annotations

import re
import shlex

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

SECTION = "Shell"


class Export(RawCommand):
    name = "export"
    builtin = True
    directory = None
    summary = "set environment variables for later commands (export NAME=value)"
    section = SECTION
    synopsis = "[-p] [NAME[=VALUE] ...]"
    flags = (Flag("-p", "", "", "list the exported variables (also what export alone does)"),)

    def execute(self, ctx: Context) -> Outcome:
        words = [w for w in ctx.argv[1:] if w != "--" and w not in _strings(self.flags)]
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
    synopsis = "[-fv] [NAME ...]"
    flags = (Flag("-v", "", "", "the NAMEs are variables (the default)"),
             Flag("-f", "", "", "accepted; there are no shell functions, so the NAMEs are unset as variables"))

    def execute(self, ctx: Context) -> Outcome:
        status = 0
        for name in ctx.argv[1:]:
            if name in _strings(self.flags):
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
    synopsis = "[-ar] [-d DELIM] [-n NCHARS] [-p PROMPT] [-t TIMEOUT] [-u FD] [NAME ...]"
    notes = "Other options are accepted and ignored; the line goes to REPLY when no NAME is given."
    flags = (
        Flag("-a", "", "", "accepted; the NAMEs are read as plain variables, not an array"),
        Flag("-d", "", "DELIM", "accepted and ignored: a line ends at a newline"),
        Flag("-n", "", "NCHARS", "accepted and ignored: the whole line is read"),
        Flag("-p", "", "PROMPT", "print PROMPT on stderr before reading"),
        Flag("-r", "", "", "do not treat backslashes as escapes"),
        Flag("-t", "", "TIMEOUT", "accepted and ignored: input is already there or not"),
        Flag("-u", "", "FD", "accepted and ignored: read standard input"),
    )
    #: The options whose value is the next word, from the table above.
    _WITH_VALUE = frozenset(flag.short for flag in flags if flag.value)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        raw = False
        at = 0
        while at < len(words) and words[at].startswith("-") and len(words[at]) > 1:
            flag = words[at]
            at += 1
            if flag == "-r":
                raw = True
            elif flag in self._WITH_VALUE and at < len(words):
                value = words[at]
                at += 1
                if flag == "-p":
                    ctx.err(value)
            elif flag == "--":
                break
        words = words[at:]
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
    notes = "Every option is accepted and changes nothing here."
    flags = (
        Flag("-a", "", "", "export the variables that are set"),
        Flag("-b", "", "", "report finished jobs at once"),
        Flag("-e", "", "", "exit when a command fails"),
        Flag("-f", "", "", "no pathname expansion"),
        Flag("-h", "", "", "remember where commands are found"),
        Flag("-k", "", "", "assignments anywhere on the line go to the environment"),
        Flag("-m", "", "", "job control"),
        Flag("-n", "", "", "read commands without running them"),
        Flag("-p", "", "", "privileged mode"),
        Flag("-t", "", "", "exit after one command"),
        Flag("-u", "", "", "an unset variable is an error"),
        Flag("-v", "", "", "print input lines as they are read"),
        Flag("-x", "", "", "print commands as they run"),
        Flag("-B", "", "", "brace expansion"),
        Flag("-C", "", "", "do not overwrite files with >"),
        Flag("-H", "", "", "! history expansion"),
        Flag("-P", "", "", "do not follow symbolic links"),
        Flag("-o", "", "option-name", "set an option by name (pipefail, errexit, nounset, ...)"),
    )
    #: The one-letter options, from the table above (``+x`` turns one off).
    _LETTERS = "".join(flag.short[1] for flag in flags if not flag.value)
    synopsis = f"[-{_LETTERS}] [-o option-name] [--] [arg ...]"

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
                    elif letter not in self._LETTERS:
                        raise ctx.fail(f"bash: set: {word[0]}{letter}: invalid option\n"
                                       f"set: usage: set {self.synopsis}", 2)
            i += 1
        return 0


def _strings(flags: tuple[Flag, ...]) -> set[str]:
    """Every spelling of the flags in a table."""
    return {spelling for flag in flags for spelling in flag.strings()}


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_SET_OPTIONS = {"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand",
                "history", "ignoreeof", "interactive-comments", "keyword", "monitor", "noclobber", "noexec",
                "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix", "privileged",
                "verbose", "vi", "xtrace"}
