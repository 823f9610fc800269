"""systemd and the kernel log: systemctl, journalctl and dmesg.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.system.dmesg import Dmesg
from emulator.commands.system.journalctl import Journalctl
from emulator.commands.system.systemctl import Systemctl

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [Systemctl(), Journalctl(), Dmesg()]
