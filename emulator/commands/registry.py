"""The command registry: every command the shell knows, from an explicit list.

Each tool-family module exposes ``commands() -> list[Command]``. Adding a
command means adding it to its module's list; adding a module means adding
it to ``MODULES`` below. ``help``, completion, ``man``, ``which`` and the
generated command reference all read this one table.
"""

from __future__ import annotations

from types import ModuleType

from emulator.commands import (
    bmc,
    builtins,
    dcgm,
    fabric,
    files,
    fsio,
    gpu,
    host,
    ibscan,
    labcmds,
    nccl,
    netif,
    perftest,
    procs,
    sacct,
    salloc,
    slurm,
    slurm_jobs,
    snapshot,
    system,
    text,
    training,
)
from emulator.commands.base import Command

MODULES: tuple[ModuleType, ...] = (builtins, files, text, gpu, system, dcgm, labcmds, slurm, sacct, slurm_jobs, salloc, fabric, host, bmc, nccl, training, snapshot, ibscan, netif, procs, fsio, perftest)


def _build() -> dict[str, Command]:
    table: dict[str, Command] = {}
    for module in MODULES:
        for command in module.commands():
            for name in (command.name, *command.aliases):
                if name in table:
                    raise RuntimeError(f"command {name!r} registered twice")
                table[name] = command
    return table


_TABLE: dict[str, Command] | None = None


def table() -> dict[str, Command]:
    """Name (and alias) → command."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _build()
    return _TABLE


def lookup(name: str) -> Command | None:
    return table().get(name)


def commands() -> list[Command]:
    """Every command once (aliases folded), sorted by section then name."""
    unique = {id(c): c for c in table().values()}
    return sorted(unique.values(), key=lambda c: (c.section, c.name))
