"""What expansion needs from the shell (:class:`Env`), and how an expansion fails (:class:`ExpansionError`)."""

from __future__ import annotations

from typing import Protocol

from emulator.shell.lexer import ShellSyntaxError


class ExpansionError(ShellSyntaxError):
    """A failed expansion (``${x:?}``, bad arithmetic); the message follows bash."""


class Env(Protocol):
    """What expansion needs from the shell."""

    @property
    def home(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    def lookup_var(self, name: str) -> str | None: ...

    def set_var(self, name: str, value: str) -> None: ...

    def substitute(self, source: str) -> str: ...

    def glob(self, pattern: str) -> list[str]: ...
