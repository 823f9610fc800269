"""The shell-state builtins: cd, ssh and exit; export, unset, read and set; history, source, alias and unalias.

They change the interpreter's own state (the working directory, the current
host, the environment, the aliases), so they live beside it rather than among
the tool families; they reach that state through ``ctx.shell``, never by
importing the interpreter. They import the command kit, the shell's lexer and
signals, and the cluster's seeded randomness; the shell's table imports them.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.shell.builtins import lines, places, variables

__all__ = ["commands"]


def commands() -> list[Command]:
    """The state builtins, for the shell's command table."""
    return [places.Cd(), variables.Export(), variables.Unset(), lines.History(), variables.Read(), places.Ssh(),
            places.Exit(), lines.Source(), variables.Set(), lines.Alias(), lines.Unalias()]
