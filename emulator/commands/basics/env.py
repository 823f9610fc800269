"""The environment as commands see it: pwd, env, printenv, clear and sudo."""

from __future__ import annotations

import argparse
import re

from emulator.cluster.accounts import UIDS
from emulator.commands.kit.command import Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser, Flag

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
#: ``env``'s one option.
_IGNORE = Flag("-i", "--ignore-environment", "", "start with an empty environment (also: a lone -)")


class Env(RawCommand):
    name = "env"
    summary = "print the environment, or run a command with changed variables"
    section = SECTION
    synopsis = "[-i] [NAME=VALUE]... [COMMAND [ARG]...]"
    flags = (_IGNORE,)
    #: The words before the assignments that empty the environment: the flag, or a lone ``-``.
    _EMPTY = frozenset([*_IGNORE.strings(), "-"])

    def pure(self, words: list[str]) -> bool:
        return not words  # with words it runs a command

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        env = dict(ctx.env)
        at = 0
        while at < len(words) and (words[at] in self._EMPTY or words[at] == "--"):
            if words[at] in self._EMPTY:
                env = {}
            at += 1
        words = words[at:]
        if words and words[0].startswith("-"):
            raise ctx.fail(f"env: invalid option -- '{words[0].lstrip('-')[:1]}'\nTry 'env --help' for more information.", 125)
        at = 0
        while at < len(words) and "=" in words[at] and _NAME.match(words[at].split("=", 1)[0]):
            name, value = words[at].split("=", 1)
            env[name] = value
            at += 1
        words = words[at:]
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
    synopsis = "[VARIABLE]..."

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
    summary = "execute a command as another user (root by default)"
    section = SECTION
    synopsis = "[OPTION]... COMMAND [ARG]..."
    notes = ("The command runs as root, or as the user -u names (sudo -u slurm scontrol ...): whoami, id and\n"
             "Slurm (its operator commands, job ownership) see that user. Here that is all it changes: host\n"
             "changes that need root (systemctl start, nvidia-smi -r, dmesg -C) are still refused, the\n"
             "environment is kept as it is, and the other options are accepted and change nothing.")
    flags = (
        Flag("-A", "", "", "ask for the password through a helper program"),
        Flag("-B", "", "", "ring the bell when prompting"),
        Flag("-b", "", "", "run the command in the background"),
        Flag("-C", "", "num", "close file descriptors from num up"),
        Flag("-D", "", "directory", "run the command in directory"),
        Flag("-E", "", "", "keep the user's environment"),
        Flag("-g", "", "group", "run with this primary group"),
        Flag("-H", "", "", "set HOME to the target user's home"),
        Flag("-h", "", "host", "run the command on host (with a plugin that supports it)"),
        Flag("-i", "", "", "run the target user's login shell"),
        Flag("-K", "", "", "remove the cached credentials"),
        Flag("-k", "", "", "ignore the cached credentials"),
        Flag("-n", "", "", "never prompt"),
        Flag("-P", "", "", "keep the user's group vector"),
        Flag("-p", "", "prompt", "the password prompt"),
        Flag("-R", "", "directory", "change the root directory before running"),
        Flag("-r", "", "role", "SELinux role"),
        Flag("-S", "", "", "read the password from stdin"),
        Flag("-s", "", "", "run the shell"),
        Flag("-T", "", "timeout", "end the command after timeout"),
        Flag("-t", "", "type", "SELinux type"),
        Flag("-U", "", "user", "with -l: the user whose privileges to list"),
        Flag("-u", "", "user", "run as user (default root)"),
        Flag("-V", "", "", "print the version"),
        Flag("-v", "", "", "refresh the cached credentials"),
    )
    #: The options whose value is the next word, from the table above.
    _WITH_VALUE = frozenset(flag.short for flag in flags if flag.value)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        user = "root"
        at = 0
        while at < len(words) and words[at].startswith("-"):
            flag = words[at]
            at += 1
            if flag == "--":
                break
            if flag in self._WITH_VALUE and at < len(words):
                if flag == "-u":
                    user = words[at]
                at += 1
        words = words[at:]
        if user not in UIDS:
            # sudo 1.9.9 (Ubuntu 22.04) refuses an unknown -u user in these two lines, exit 1.
            raise ctx.fail(f"sudo: unknown user {user}\nsudo: error initializing audit plugin sudoers_audit", 1)
        if not words:
            raise ctx.fail("usage: sudo -h | -K | -k | -V\nusage: sudo -v [-ABknS] [-g group] [-h host] [-p prompt] "
                           "[-u user]\nusage: sudo [-ABbEHknPS] [-C num] [-D directory] [-g group] [-h host] "
                           "[-p prompt] [-R directory] [-T timeout] [-u user] [VAR=value] [-i|-s] [<command>]", 1)
        if ctx.commands.lookup(words[0]) is None:
            raise ctx.fail(f"sudo: {words[0]}: command not found", 1)
        return (yield from ctx.shell.run_streaming(words, ctx, user))
