"""help, man, which and type: what the shell knows, read from the command table the context carries."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser, Flag

SECTION = "Shell"


class Help(ParsedCommand):
    name = "help"
    reads_only = True
    builtin = True
    directory = None
    summary = "list every command, grouped by topic"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("topic", nargs="?", help="a command name: the same as `man TOPIC`")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.topic:
            command = ctx.commands.lookup(args.topic)
            if command is None:
                raise ctx.fail(f"bash: help: no help topics match `{args.topic}'.  Try `man -k {args.topic}'.")
            ctx.out(command.help_text())
            return 0
        commands = ctx.commands.commands()
        width = max((len(c.name) for c in commands), default=8) + 2
        ctx.outln("Commands of this simulated cluster ('man CMD' or 'CMD --help' for details):")
        section = None
        for command in sorted(commands, key=lambda c: (_section_rank(c.section), c.section, c.name)):
            if command.section != section:
                section = command.section
                ctx.outln()
                ctx.outln(f"{section}:")
            ctx.outln(f"  {command.name:<{width}}{command.summary}")
        ctx.outln()
        ctx.outln("Type 'lab' for this page's lab task, and 'solutions' for reference procedures;")
        ctx.outln("'oncall start' starts an on-call shift of several incidents at once.")
        return 0



def _section_rank(section: str) -> int:
    """The shell's own sections come last, after the operator tools."""
    return {SECTION: 2, "Files and text": 1}.get(section, 0)



class Man(ParsedCommand):
    name = "man"
    reads_only = True
    summary = "show a command's manual page (from the same spec as --help)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("page", nargs="?", help="command name")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if not args.page:
            raise ctx.fail("What manual page do you want?\nFor example, try 'man man'.", 1)
        command = ctx.commands.lookup(args.page)
        if command is None:
            raise ctx.fail(f"No manual entry for {args.page}", 16)
        ctx.out(render_man(command))
        return 0



def render_man(command: Command) -> str:
    """A man page laid out like man(1): NAME, SYNOPSIS, DESCRIPTION, from the help text."""
    title = f"{command.name.upper()}(1)"
    middle = "User Commands"
    pad = max(1, (78 - len(middle)) // 2 - len(title))
    header = f"{title}{' ' * pad}{middle}"
    header += " " * max(1, 78 - len(header) - len(title)) + title
    help_lines = command.help_text().splitlines()
    usage = help_lines[0].removeprefix("Usage: ") if help_lines else command.name
    body = help_lines[2:] if len(help_lines) > 2 else []
    lines = [header, "", "NAME", f"       {command.name} - {command.summary}", "", "SYNOPSIS", f"       {usage}", ""]
    lines.append("DESCRIPTION")
    for line in body:
        lines.append(f"       {line}" if line else "")
    while lines and not lines[-1]:
        lines.pop()
    lines += ["", f"{'':<30}emulator 0.1{'':<30}{title}"]
    return "\n".join(lines).rstrip() + "\n"



# -- lookup --------------------------------------------------------------------------------
class Which(ParsedCommand):
    name = "which"
    reads_only = True
    summary = "show where a command lives"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-a", action="store_true", help="print all matching paths")
        parser.add_argument("names", nargs="*", metavar="COMMAND", help="command names")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        status = 0
        for name in args.names:
            command = ctx.commands.lookup(name)
            path = command.path(name) if command else None
            if path:
                ctx.outln(path)
            else:
                status = 1
        return status



class Type(RawCommand):
    name = "type"
    reads_only = True
    builtin = True
    directory = None
    summary = "tell how a name would be interpreted as a command"
    section = SECTION
    synopsis = "[-afptP] NAME..."
    notes = "The options are accepted and ignored: each name gets bash's full sentence."
    flags = (
        Flag("-a", "", "", "every place NAME is found"),
        Flag("-f", "", "", "do not look up shell functions"),
        Flag("-P", "", "", "search PATH even for builtins and aliases"),
        Flag("-p", "", "", "the file that would run, if any"),
        Flag("-t", "", "", "one word: alias, keyword, function, builtin or file"),
    )

    def execute(self, ctx: Context) -> Outcome:
        status = 0
        for name in [w for w in ctx.argv[1:] if not w.startswith("-")]:
            command = ctx.commands.lookup(name)
            if name in ("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "in", "{", "}",
                        "!", "case", "esac", "function", "select", "time", "[[", "]]"):
                ctx.outln(f"{name} is a shell keyword")
            elif name in ctx.shell.aliases:
                ctx.outln(f"{name} is aliased to `{ctx.shell.aliases[name]}'")
            elif command is not None and command.builtin:
                ctx.outln(f"{name} is a shell builtin")
            elif command is not None:
                ctx.outln(f"{name} is {command.path(name)}")
            else:
                ctx.err(f"bash: type: {name}: not found\n")
                status = 1
        return status
