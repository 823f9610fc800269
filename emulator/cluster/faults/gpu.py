"""Faults of the gpu domain (see :mod:`emulator.cluster.faults`)."""

from __future__ import annotations

from . import Fault

FAULTS: list[Fault] = []
