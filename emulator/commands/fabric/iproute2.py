"""What iproute2's tools (``ip``, ``rdma``) share: options read from their declared flag tables.

iproute2 spells its long options with one dash (``-brief``, ``-details``).
Each tool declares them as :class:`~emulator.commands.kit.spec.Flag` rows
grouped by what they do, and its parser asks :func:`spellings` of a group,
so ``--help``, ``man`` and completion read the table the parser checks against.
"""

from __future__ import annotations

from emulator.commands.kit.spec import Flag


def spellings(flags: tuple[Flag, ...]) -> frozenset[str]:
    """Every way the flags may be written (``-d``, ``-details``)."""
    return frozenset(s for flag in flags for s in flag.strings())
