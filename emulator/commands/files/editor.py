"""vim, vi, nano and emacs: interactive editors, which cannot run in this terminal, say so and how to write files instead."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION
from emulator.commands.kit.spec import Flag

#: What each run says instead of opening the editor.
INSTEAD = ("interactive editors are not available in this terminal; "
           "read files with cat or less, and write them with echo, printf, tee or sed -i")


class Editor(RawCommand):
    name = "vim"
    summary = "(not available) interactive editors cannot run in this terminal"
    section = SECTION
    aliases = ("vi", "nano", "emacs")
    synopsis = "[FILE]..."
    flags = (Flag("", "--help", "", "display this help and exit"),)
    notes = ("Every other run (vim, vi, nano or emacs, with any options) fails with status 1 and says\n"
             "how to do without: " + INSTEAD.split("; ", 1)[1] + ".")

    def execute(self, ctx: Context) -> Outcome:
        if ctx.argv[1:] == ["--help"]:
            ctx.out(self.help_text())
            return 0
        raise ctx.fail(f"{ctx.argv[0]}: {INSTEAD}", 1)
