"""The lab commands: lab, hint, solutions and submit.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.lab import submit, tools

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*tools.commands(), *submit.commands()]
