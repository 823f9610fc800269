"""Shell built-ins and identity commands: help, echo, hostname, and the rest of the shell's own commands."""

from __future__ import annotations

import argparse

from . import registry
from .base import ArgumentParser, Command, Context, Outcome


class Help(Command):
    name = "help"
    summary = "list every command, grouped by topic"
    section = "Shell"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("topic", nargs="?", help="a command name: the same as `man TOPIC`")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.topic:
            command = registry.lookup(args.topic)
            if command is None:
                raise ctx.fail(f"bash: help: no help topics match `{args.topic}'.  Try `man -k {args.topic}'.")
            ctx.out(command.help_text())
            return 0
        commands = registry.commands()
        width = max((len(c.name) for c in commands), default=8) + 2
        ctx.outln("Commands of this simulated cluster (`man CMD` or `CMD --help` for details):")
        section = None
        for command in sorted(commands, key=lambda c: (_section_rank(c.section), c.section, c.name)):
            if command.section != section:
                section = command.section
                ctx.outln()
                ctx.outln(f"{section}:")
            ctx.outln(f"  {command.name:<{width}}{command.summary}")
        ctx.outln()
        ctx.outln("Type `lab` for this page's lab task, and `solutions` for reference procedures.")
        return 0


def _section_rank(section: str) -> int:
    """The shell's own sections come last, after the operator tools."""
    return {"Shell": 2, "Files and text": 1}.get(section, 0)


class Echo(Command):
    name = "echo"
    summary = "print arguments (-n: no newline, -e: interpret backslash escapes)"
    section = "Shell"
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        newline, escapes = True, False
        while words and len(words[0]) > 1 and words[0][0] == "-" and set(words[0][1:]) <= set("neE"):
            flags = words.pop(0)[1:]
            for flag in flags:
                if flag == "n":
                    newline = False
                elif flag == "e":
                    escapes = True
                else:
                    escapes = False
        text = " ".join(words)
        if escapes:
            text, stop = unescape(text)
            if stop:
                newline = False
        ctx.out(text + ("\n" if newline else ""))
        return 0


def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes of ``echo -e`` and ``printf``; the flag is True after ``\\c``."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
              "e": "\x1b", "E": "\x1b"}
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "c":
            return "".join(out), True
        elif nxt == "0":
            j = i + 2
            while j < len(text) and j < i + 5 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 2:j] or "0", 8)))
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(text) and j < i + 4 and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(text[i + 2:j], 16)) if j > i + 2 else "\\x")
            i = j
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out), False


class Hostname(Command):
    name = "hostname"
    summary = "show the name of the current host"
    section = "Shell"

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--fqdn", "--long", action="store_true", help="the fully qualified domain name")
        parser.add_argument("-s", "--short", action="store_true", help="the short host name")
        parser.add_argument("-i", "--ip-address", action="store_true", help="the host's address")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.ip_address:
            ctx.outln(ctx.host.mgmt_ipv4)
        elif args.fqdn:
            ctx.outln(f"{ctx.host.name}.{ctx.cluster.domain}")
        else:
            ctx.outln(ctx.host.name)
        return 0


def commands() -> list[Command]:
    return [Help(), Echo(), Hostname()]
