"""Exceptions shared across the emulator.

Every error a learner can cause is one of these; the shell turns them into a
message on stderr and an exit status, never a traceback.
"""


class EmulatorError(Exception):
    """Base class for every error the emulator raises on purpose."""


class CommandError(EmulatorError):
    """A command failed; ``message`` goes to stderr as is, ``status`` is the exit code."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class UsageError(CommandError):
    """Bad flags or operands; raised by the argument parser of a command."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message, status)


class OutputLimitExceeded(EmulatorError):
    """A command, a pipe or a ``$( )`` reached its output limit; ``str()`` is the one line to print."""


class LineStopped(EmulatorError):
    """A limit of the terminal ends the whole input line (commands run, screen output); ``str()`` is bash's line."""


class Interrupted(EmulatorError):
    """The learner pressed Ctrl-C while a command was streaming."""


class LabError(EmulatorError):
    """A lab file is invalid or a lab id is unknown."""
