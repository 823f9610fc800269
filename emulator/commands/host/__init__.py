"""Tools that read the host's hardware and processes: lscpu, lspci, numactl, ps, top, free, taskset, pgrep, and storage (df, lsblk, mount, iostat, vmstat, lfs).

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.host import fsio, hardware, procs
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*hardware.commands(), *procs.commands(), *fsio.commands()]
