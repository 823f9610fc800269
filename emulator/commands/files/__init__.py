"""The coreutils that read and change files: ls, cat, cp, mv, rm, find, du, tee, touch, less, more and vim.

``ls``, ``du`` and ``find`` (listings, sizes and searches), ``show`` (cat, less
and more), ``change`` (tee, touch, mkdir, rm, cp, mv) and ``editor`` (the
interactive editors, which cannot run here). Errors read like coreutils'
(``ls: cannot access '/nope': No such file or directory``), with the errno
text from :func:`os.strerror`.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.files import change, du, editor, find, ls, show
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [ls.Ls(), show.Cat(), show.Less(), change.Tee(), change.Touch(), change.Mkdir(), change.Rm(), change.Cp(),
            change.Mv(), find.Find(), du.Du(), editor.Editor()]
