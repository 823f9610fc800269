"""The workshop commands: ``completion`` (a solve's completion code), ``progress`` (this terminal's labs) and
``oncall`` (an on-call shift).

A tool family: it imports the labs (``emulator.labs``) and the shared kit
(``emulator.commands.kit``), never another family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.workshop import completion, oncall

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*completion.commands(), *oncall.commands()]
