"""The text filters: grep, sed, sort, uniq, cut, tr, head, tail, wc, paste, column, xargs, seq and friends.

One module per tool or small group of tools (awk is a family of its own:
:mod:`emulator.commands.awk`). Each follows GNU coreutils, grep and sed in the
options it accepts and the words of its messages.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.kit.command import Command
from emulator.commands.text import fields, grep, headtail, names, sed, seq, sort, tr, uniq, wc, xargs

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [headtail.Head(), headtail.Tail(), wc.Wc(), grep.Grep(), sort.Sort(), uniq.Uniq(), fields.Cut(), tr.Tr(),
            fields.Column(), sed.Sed(), seq.Seq(), xargs.Xargs(), fields.Paste(), names.Basename(), names.Dirname()]
