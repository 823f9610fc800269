"""Helpers shared by the conformance tests: sessions standing on a host, several commands at one instant."""

from __future__ import annotations

from emulator.session import Session

MARK = "@@@@"


def on(host: str | None, lab: str | None = None, seed: int = 0) -> Session:
    """A fresh session on ``host`` (None: the login node) in ``lab``."""
    s = Session(lab=lab, seed=seed)
    if host:
        out, status = s.execute(f"ssh {host}")
        assert status == 0, out
    return s


def together(s: Session, *commands: str) -> list[str]:
    """The outputs of ``commands`` typed on one line, so they read the model at the same instant."""
    out, _ = s.execute(f"; echo {MARK}; ".join(commands))
    parts = out.split(MARK + "\n")
    assert len(parts) == len(commands), out[:500]
    return parts


def truth(s: Session, fault: str) -> dict[str, str]:
    """The concrete targets the lab's seed chose for ``fault``."""
    return next(f.truth for f in s.cluster.faults if f.name == fault)
