"""help, man, which and type: the shell's answers about its commands.

A tool family that reads the command table through its context
(``ctx.commands``), never by importing the registry.
"""

from __future__ import annotations

from emulator.commands.help import topics
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [topics.Help(), topics.Man(), topics.Which(), topics.Type()]
