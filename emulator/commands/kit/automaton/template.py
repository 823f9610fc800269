"""Replacement templates (``\\1``, ``\\g<name>``, ``\\n``), read as ``re``'s ``parse_template`` reads them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

_OCTAL = "01234567"
_DIGITS = "0123456789"
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_MAXGROUPS = 2 ** 30

#: A parsed template: literal pieces, and (index into the pieces, group number) for each reference.
Template = tuple[list[str | None], list[tuple[int, int]]]


def parse_template(source: str, groups: int, groupindex: Mapping[str, int]) -> Template:
    """The pieces of a replacement string; ``re.error`` or ``IndexError`` as ``re`` raises them."""
    pieces: list[str | None] = []
    refs: list[tuple[int, int]] = []
    literal: list[str] = []

    def group(index: int) -> None:
        if index > groups:
            raise re.error(f"invalid group reference {index}", source)
        if literal:
            pieces.append("".join(literal))
            literal.clear()
        refs.append((len(pieces), index))
        pieces.append(None)

    i, n = 0, len(source)
    while i < n:
        c = source[i]
        i += 1
        if c != "\\":
            literal.append(c)
            continue
        if i >= n:
            raise re.error("bad escape (end of pattern)", source, n - 1)
        c = source[i]
        i += 1
        if c == "g":
            if not source.startswith("<", i):
                raise re.error("missing <", source, i)
            end = source.find(">", i + 1)
            name = source[i + 1:] if end < 0 else source[i + 1:end]
            if not name:
                raise re.error("missing group name", source, i + 1)
            if end < 0:
                raise re.error("missing >, unterminated name", source, i + 1)
            i = end + 1
            if name.isidentifier():
                if name not in groupindex:
                    raise IndexError(f"unknown group name {name!r}")
                group(groupindex[name])
                continue
            try:
                index = int(name)
            except ValueError:
                raise re.error(f"bad character in group name {name!r}", source, i) from None
            if index < 0:
                raise re.error(f"bad character in group name {name!r}", source, i)
            if index >= _MAXGROUPS:
                raise re.error(f"invalid group reference {index}", source, i)
            group(index)
        elif c == "0":
            digits = c
            while i < n and len(digits) < 3 and source[i] in _OCTAL:
                digits += source[i]
                i += 1
            literal.append(chr(int(digits, 8) & 0xFF))
        elif c in _DIGITS:
            digits = c
            if i < n and source[i] in _DIGITS:
                digits += source[i]
                i += 1
                if c in _OCTAL and digits[1] in _OCTAL and i < n and source[i] in _OCTAL:
                    digits += source[i]
                    i += 1
                    value = int(digits, 8)
                    if value > 0o377:
                        raise re.error(f"octal escape value \\{digits} outside of range 0-0o377", source, i)
                    literal.append(chr(value))
                    continue
            group(int(digits))
        elif c in _ESCAPES:
            literal.append(_ESCAPES[c])
        elif c.isascii() and c.isalpha():
            raise re.error(f"bad escape \\{c}", source, i - 2)
        else:
            literal.append("\\" + c)
    if literal:
        pieces.append("".join(literal))
    return pieces, refs


def expand(template: Template, group: Callable[[int], str | None]) -> str:
    pieces, refs = template
    if not refs:
        return "".join(p for p in pieces if p is not None)
    out = list(pieces)
    for index, number in refs:
        out[index] = group(number) or ""
    return "".join(p for p in out if p is not None)
