"""Tools that read the host's hardware and processes: lscpu, lspci, numactl, ps, top, free, taskset, numastat, pgrep, and storage (df, lsblk, mount, iostat, vmstat, lfs, lctl).

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.host import hardware
from emulator.commands.host.df import Df
from emulator.commands.host.free import Free
from emulator.commands.host.iostat import Iostat
from emulator.commands.host.lctl import Lctl
from emulator.commands.host.lfs import Lfs
from emulator.commands.host.lsblk import Lsblk
from emulator.commands.host.mounts import MountCmd
from emulator.commands.host.numastat import Numastat
from emulator.commands.host.pgrep import Pgrep
from emulator.commands.host.ps import Ps
from emulator.commands.host.taskset import Taskset
from emulator.commands.host.top import Top
from emulator.commands.host.vmstat import Vmstat
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*hardware.commands(), Free(), Top(), Ps(), Taskset(), Pgrep(), Df(), MountCmd(), Lsblk(), Iostat(),
            Vmstat(), Lfs(), Lctl(), Numastat()]
