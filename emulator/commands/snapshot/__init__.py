"""diag-snapshot, the operator's one-shot collection of a node's state, and the driver's nvidia-bug-report.sh.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.snapshot import bug_report, diag_snapshot

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*diag_snapshot.commands(), *bug_report.commands()]
