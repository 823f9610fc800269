"""Slurm's user and operator commands: sinfo, squeue, scontrol, sbatch, srun, salloc, scancel and sacct.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.slurm import sacct, salloc, sbatch, scancel, scontrol, sinfo, squeue, srun

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [*sinfo.commands(), *squeue.commands(), *scontrol.commands(), *srun.commands(), *sbatch.commands(),
            *scancel.commands(), *salloc.commands(), *sacct.commands()]
