"""Helpers shared by the conformance tests: sessions standing on a host, several commands at one instant."""

from __future__ import annotations

from emulator.session import Session
from tests.support import on  # noqa: F401 - re-exported for the conformance tests

MARK = "@@@@"



def together(s: Session, *commands: str) -> list[str]:
    """The outputs of ``commands`` typed on one line, so they read the model at the same instant."""
    out, _ = s.execute(f"; echo {MARK}; ".join(commands))
    parts = out.split(MARK + "\n")
    assert len(parts) == len(commands), out[:500]
    return parts


def truth(s: Session, fault: str) -> dict[str, str]:
    """The concrete targets the lab's seed chose for ``fault``."""
    return next(f.truth for f in s.cluster.faults if f.name == fault)
