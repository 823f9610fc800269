"""The shell's command table: the registry's tool families plus the shell's own state builtins.

Built once per process; dispatch, completion, and every command (through
``ctx.commands``) read this one table.
"""

from __future__ import annotations

from functools import cache

from emulator.commands import registry
from emulator.commands.kit.command import CommandTable
from emulator.shell import builtins

__all__ = ["commands"]


@cache
def commands() -> CommandTable:
    """Every command the shell knows, by name and alias."""
    return registry.table(builtins.commands())
