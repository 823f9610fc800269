"""Numbers as nccl-tests and mpirun read them: sizes with K/M/G suffixes, C's lenient strtol, and optional floats."""

from __future__ import annotations


def parse_size(text: str) -> int | None:
    """nccl-tests' size syntax: a number with an optional K, M or G suffix (powers of 1024)."""
    text = text.strip()
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    mult = 1
    if text and text[-1].lower() in units:
        mult = units[text[-1].lower()]
        text = text[:-1]
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value * mult) if value >= 0 else None


def c_int(text: str) -> int:
    """strtol(text, NULL, 0): leading digits, 0 when none."""
    digits = ""
    for ch in text.strip():
        if ch.isdecimal() or (ch == "-" and not digits):
            digits += ch
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


def c_float(text: str) -> float | None:
    """``text`` as a float, or None when it is not one (an unset threshold)."""
    try:
        return float(text)
    except ValueError:
        return None
