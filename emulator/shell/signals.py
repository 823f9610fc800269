"""Control-flow signals the shell's builtins raise and the interpreter catches."""

from __future__ import annotations


class ExitShell(Exception):  # noqa: N818 - a control-flow signal, like StopIteration
    """``exit`` inside a subshell or a remote line: ends that shell with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status
