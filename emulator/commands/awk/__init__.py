"""awk, the pattern-scanning language: its lexer, parser, interpreter, built-in functions and the command.

``lexer`` (text into tokens), ``parser`` (tokens into a program of tuples),
``interpreter`` (records, fields, expressions and statements), ``builtins``
(the functions and printf's formats), ``values`` (numbers, strings and
strnums), ``errors`` (errors and the signals of next, exit, break and
continue) and ``command`` (the ``awk`` command: its flags, its inputs and
its records).

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.awk import command
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [command.Awk()]
