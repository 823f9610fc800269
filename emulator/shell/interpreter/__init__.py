"""The interpreter: runs a parsed line against the shell's state, one concern per module.

At the bottom ``streams`` (the sinks a command writes to, a loop's input; the
limits themselves are in :mod:`emulator.limits`); then ``state`` (hosts, environment, filesystems, queued output),
and one class per concern, each built on the one before: ``redirects``,
``simple`` (simple-command dispatch), ``compound`` (groups, loops, ``case``,
``if``), ``pipelines`` (lists and pipelines, streaming ones included) and
``shell``, whose :class:`Shell` adds the entry points. It imports the shell's
lexer, parser, expansion and command table and the floors below the shell;
the facades and the shell's completion import it, through this face only.
"""

from emulator.shell.interpreter.shell import Shell
from emulator.shell.interpreter.state import Frame

__all__ = ["Frame", "Shell"]
