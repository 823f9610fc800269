"""The command registry: every tool family the shell knows, from an explicit list.

Each family package exposes ``commands() -> list[Command]``. Adding a command
means adding it to its family's list; adding a family means adding its
package to ``FAMILIES`` below. The shell adds its own state builtins
(:mod:`emulator.shell.builtins`) to this table; dispatch, ``help``, ``man``,
``which``, ``type``, completion and the generated command reference all read
the result. Commands never import this module: they get the table through
their context.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from emulator.commands import (
    awk,
    basics,
    bmc,
    dcgm,
    fabric,
    files,
    help,
    host,
    lab,
    nccl,
    nvsmi,
    slurm,
    snapshot,
    system,
    text,
    training,
)
from emulator.commands.kit.command import Command, CommandTable

FAMILIES: tuple[ModuleType, ...] = (basics, help, files, text, awk, nvsmi, system, dcgm, lab, slurm, fabric, host, bmc,
                                    nccl, training, snapshot)


def table(extra: Iterable[Command] = ()) -> CommandTable:
    """The families' commands, plus ``extra`` (the shell's own builtins)."""
    return CommandTable([*(c for family in FAMILIES for c in family.commands()), *extra])
