"""awk's values: numbers, strings, and strnums (input that compares as a number when it looks like one).

Numbers are floats; ``UNINIT`` is a variable never assigned (both ``""`` and ``0``).
"""

from __future__ import annotations

import math
import re
from typing import Any


class StrNum(str):
    """Input text (fields, -v values): compares as a number when it looks like one."""


class _Uninit:
    def __repr__(self) -> str:
        return "<uninit>"


UNINIT = _Uninit()
#: What x86 computes for 0/0 and sqrt(-1): a NaN with the sign bit set, which awk prints as ``-nan``.
NEG_NAN = math.copysign(math.nan, -1.0)
_NUMERIC = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
_PREFIX = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def to_num(value: Any) -> float:
    if isinstance(value, float):
        return value
    if value is UNINIT:
        return 0.0
    match = _PREFIX.match(value)
    if not match:
        return 0.0
    try:
        return float(match.group(0))
    except ValueError:
        return 0.0


def num_str(value: float, fmt: str = "%.6g") -> str:
    if math.isnan(value):
        return "nan" if math.copysign(1, value) > 0 else "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e16:
        return str(int(value))
    return fmt % value


def to_str(value: Any) -> str:
    if isinstance(value, float):
        return num_str(value)
    if value is UNINIT:
        return ""
    return value


def numeric_like(value: Any) -> bool:
    return isinstance(value, float) or value is UNINIT or (isinstance(value, StrNum) and bool(_NUMERIC.match(value)))


def to_bool(value: Any) -> bool:
    if isinstance(value, float):
        return value != 0
    if value is UNINIT:
        return False
    if isinstance(value, StrNum) and _NUMERIC.match(value):
        return to_num(value) != 0
    return value != ""


def unescape(text: str) -> str:
    """The escapes of a ``-v`` or operand assignment (``\\t``, ``\\n``...) applied, as awk applies them."""
    esc = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", '"': '"', "/": "/"}
    return re.sub(r"\\(.)", lambda m: esc.get(m.group(1), "\\" + m.group(1)), text)
