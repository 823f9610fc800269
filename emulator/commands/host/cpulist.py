"""CPU lists and masks as util-linux writes them: ``0-3,8`` and its hexadecimal mask."""

from __future__ import annotations


def cpu_list(cpus: str) -> list[int]:
    """``0-3,8`` -> [0, 1, 2, 3, 8]."""
    found: list[int] = []
    for part in cpus.split(","):
        lo, _, hi = part.partition("-")
        found += range(int(lo), int(hi or lo) + 1)
    return found


def cpu_mask(cpus: str) -> str:
    """``0-3,8`` -> ``10f``."""
    return f"{sum(1 << cpu for cpu in cpu_list(cpus)):x}"
