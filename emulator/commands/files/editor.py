"""vim, vi, nano and emacs: interactive editors, which cannot run in this terminal, say so and how to write files instead."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION


class Editor(RawCommand):
    name = "vim"
    summary = "(not available) interactive editors cannot run in this terminal"
    section = SECTION
    aliases = ("vi", "nano", "emacs")

    def execute(self, ctx: Context) -> Outcome:
        raise ctx.fail(f"{ctx.argv[0]}: interactive editors are not available in this terminal; "
                       "read files with cat or less, and write them with echo, printf, tee or sed -i", 1)
