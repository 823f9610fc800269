"""The environment as commands see it: pwd, env, printenv, clear and sudo."""

from __future__ import annotations

import argparse
import re

from emulator.commands.kit.command import Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser

SECTION = "Shell"


class Pwd(ParsedCommand):
    name = "pwd"
    reads_only = True
    builtin = True
    summary = "print the working directory"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-L", action="store_true", help="logical path (the default)")
        parser.add_argument("-P", action="store_true", help="physical path")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        ctx.outln(ctx.cwd)
        return 0



#: A variable name, as in ``NAME=value``.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Env(RawCommand):
    name = "env"
    summary = "print the environment, or run a command with changed variables"
    section = SECTION

    def pure(self, words: list[str]) -> bool:
        return not words  # with words it runs a command

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        env = dict(ctx.env)
        while words and words[0] in ("-i", "--ignore-environment", "-", "--"):
            if words[0] in ("-i", "--ignore-environment", "-"):
                env = {}
            words = words[1:]
        if words and words[0].startswith("-"):
            raise ctx.fail(f"env: invalid option -- '{words[0].lstrip('-')[:1]}'\nTry 'env --help' for more information.", 125)
        while words and "=" in words[0] and _NAME.match(words[0].split("=", 1)[0]):
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        if not words:
            for name, value in env.items():
                ctx.outln(f"{name}={value}")
            return 0
        if ctx.commands.lookup(words[0]) is None:
            raise ctx.fail(f"env: ‘{words[0]}’: No such file or directory", 127)
        result = ctx.run(words, stdin=ctx.stdin, env=env)
        ctx.out(result.stdout)
        ctx.err(result.stderr)
        return result.status



class Clear(ParsedCommand):
    name = "clear"
    reads_only = True
    summary = "clear the terminal screen"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        ctx.out("\x1b[H\x1b[2J")
        return 0



class Printenv(RawCommand):
    name = "printenv"
    reads_only = True
    summary = "print all or part of the environment"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        names = ctx.argv[1:]
        if not names:
            for name, value in ctx.env.items():
                ctx.outln(f"{name}={value}")
            return 0
        status = 0
        for name in names:
            if name in ctx.env:
                ctx.outln(ctx.env[name])
            else:
                status = 1
        return status



class Sudo(RawCommand):
    name = "sudo"
    streams = True
    summary = "run a command as root (here: as yourself, with the same output)"
    section = SECTION
    _WITH_VALUE = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag == "--":
                break
            if flag in self._WITH_VALUE and words:
                words.pop(0)
        if not words:
            raise ctx.fail("usage: sudo -h | -K | -k | -V\nusage: sudo -v [-ABknS] [-g group] [-h host] [-p prompt] "
                           "[-u user]\nusage: sudo [-ABbEHknPS] [-C num] [-D directory] [-g group] [-h host] "
                           "[-p prompt] [-R directory] [-T timeout] [-u user] [VAR=value] [-i|-s] [<command>]", 1)
        if ctx.commands.lookup(words[0]) is None:
            raise ctx.fail(f"sudo: {words[0]}: command not found", 1)
        return (yield from ctx.shell.run_streaming(words, ctx))
