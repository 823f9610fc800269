"""printf-style directives, as ``printf``, awk's ``printf``/``sprintf`` and ``seq -f`` read them: the check of a field width or precision against :data:`~emulator.limits.FIELD_LIMIT`."""

from __future__ import annotations

from emulator.limits import FIELD_LIMIT, limit_reached


def oversized_field(prog: str, width: str | None, precision: str | None) -> str | None:
    """The one line to print when a directive's width or precision is past the limit (``prog`` speaks), else None.

    ``width`` and ``precision`` are the directive's digits (a ``*`` already replaced by its argument, which may
    be negative).
    """
    for name, digits in (("field width", width), ("precision", precision)):
        if digits and digits.lstrip("-").isdecimal() and abs(int(digits)) > FIELD_LIMIT:
            return limit_reached(f"{prog}: {name} {abs(int(digits))} is more than {FIELD_LIMIT}")
    return None
