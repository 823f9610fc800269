"""Faults of the fabric domain (see :mod:`emulator.cluster.faults`)."""

from __future__ import annotations

from . import Fault

FAULTS: list[Fault] = []
