"""nccl-tests (all_reduce_perf and friends) and the mpirun that launches them.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.nccl import perf_tests
from emulator.commands.nccl.mpirun import Mpirun

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*perf_tests.commands(), Mpirun()]
