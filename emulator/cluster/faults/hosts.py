"""Faults of the hosts domain (see :mod:`emulator.cluster.faults`)."""

from __future__ import annotations

from . import Fault

FAULTS: list[Fault] = []
