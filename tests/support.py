"""Helpers shared by the tests: a session standing on a host (entered by typing ``ssh``), a line that must succeed, golden-output files.

Golden files live in ``tests/commands/golden/``; ``REGOLD=1`` rewrites them
from the emulator's current output (review the diff before committing).
"""

from __future__ import annotations

import os
from pathlib import Path

from emulator.session import Session

GOLDEN = Path(__file__).resolve().parent / "commands" / "golden"


def on(host: str | None, lab: str | None = None, seed: int = 0) -> Session:
    """A fresh session in ``lab`` whose shell stands on ``host`` (None: the login node)."""
    session = Session(lab=lab, seed=seed)
    if host and host != session.cluster.login:
        out, status = session.execute(f"ssh {host}")
        assert status == 0, out
    return session


def run(session: Session, line: str) -> str:
    """The output of ``line`` typed into ``session``, which must succeed (status 0)."""
    out, status = session.execute(line)
    assert status == 0, out
    return out


def golden(name: str, text: str) -> None:
    """``text`` equals the golden file ``name``; ``REGOLD=1`` rewrites the file instead."""
    path = GOLDEN / name
    if os.environ.get("REGOLD"):
        path.write_text(text)
    assert text == path.read_text()
