"""What a running line reads and writes: the :data:`Run` generator, the sinks a file descriptor writes to, and a loop's input.

A sink is where fd 1 or 2 points: the screen (:class:`Terminal`), a pipe or a
``$(...)`` (:class:`Buffer`), a file (:class:`FileSink`), the context of the
command that runs the line (:class:`ContextSink`), or nowhere (:class:`Null`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Protocol

from emulator.commands.kit.command import Context
from emulator.errors import OutputLimitExceeded
from emulator.limits import PIPE_LIMIT, limit_reached
from emulator.vfs import FileSystem

#: A running piece of the line: yields pauses (simulated seconds), returns a status.
Run = Generator[float, None, int]


class Screen(Protocol):
    """What the terminal writes through: the shell's queue of output for the next chunk."""

    def emit(self, stream: str, text: str) -> None: ...


class Sink:
    """Where a file descriptor writes."""

    def write(self, text: str) -> None:
        raise NotImplementedError


class Terminal(Sink):
    """The screen: text is queued as (stream, text) for the next chunk."""

    def __init__(self, shell: Screen, stream: str) -> None:
        self.shell, self.stream = shell, stream

    def write(self, text: str) -> None:
        self.shell.emit(self.stream, text)


class Buffer(Sink):
    """A pipe or a ``$( )``: it keeps up to :data:`~emulator.limits.PIPE_LIMIT` characters.

    The write that overflows it keeps what fits and raises once, naming the limit
    (``what`` is the pipe or the command substitution); later writes are dropped.
    """

    def __init__(self, what: str = "pipe") -> None:
        self.parts: list[str] = []
        self.size = 0
        self.what = what
        self.full = False

    def write(self, text: str) -> None:
        if self.full:
            return
        room = PIPE_LIMIT - self.size
        if len(text) > room:
            self.parts.append(text[:room])
            self.size, self.full = PIPE_LIMIT, True
            raise OutputLimitExceeded(limit_reached(f"bash: {self.what}: output stopped after {PIPE_LIMIT} characters"))
        self.size += len(text)
        self.parts.append(text)

    def text(self) -> str:
        return "".join(self.parts)


class FileSink(Sink):
    def __init__(self, fs: FileSystem, path: str) -> None:
        self.fs, self.path = fs, path

    def write(self, text: str) -> None:
        self.fs.write(self.path, text, append=True)


class ContextSink(Sink):
    """Writes into a running command's context (a command that runs a line, such as ``ssh``)."""

    def __init__(self, ctx: Context, stream: str) -> None:
        self.ctx, self.stream = ctx, stream

    def write(self, text: str) -> None:
        (self.ctx.out if self.stream == "out" else self.ctx.err)(text)


class Null(Sink):
    def write(self, text: str) -> None:
        pass


class Input:
    """A loop's standard input, which ``read`` consumes line by line (``while read x; do ...; done < f``)."""

    def __init__(self, text: str) -> None:
        #: What is left; commands in the loop get this very string as their stdin.
        self.rest = text

    def read_line(self) -> str | None:
        """The next line without its newline, or None at the end."""
        if not self.rest:
            return None
        line, newline, rest = self.rest.partition("\n")
        self.rest = rest
        return line
