"""Glob patterns matched against a value: ``${x#pat}``, ``${x%%pat}``, ``${x/pat/rep}`` and ``${x//pat/rep}``.

A pattern without ``*``, ``?`` or ``[`` is plain text, matched with string methods
at any length. A glob pattern is matched against values of up to
:data:`~emulator.limits.PATTERN_LIMIT` characters (a longer value is refused
with a message): removal tries each cut with one compiled expression, and
replacement finds the longest match at each position from the pattern's
pieces between stars, which are of fixed length, so that no backtracking over
stars is needed. A result longer than :data:`~emulator.limits.VALUE_LIMIT`
characters is refused.
"""

from __future__ import annotations

import fnmatch
import re

from emulator.limits import PATTERN_LIMIT, VALUE_LIMIT, limit_reached
from emulator.shell.expand.env import ExpansionError


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def _check(value: str, pattern: str, what: str) -> None:
    if _is_glob(pattern) and len(value) > PATTERN_LIMIT:
        raise ExpansionError(limit_reached(f"{what}: pattern matching on more than {PATTERN_LIMIT} characters"))


def _checked(result_size: int, what: str) -> None:
    if result_size > VALUE_LIMIT:
        raise ExpansionError(limit_reached(f"{what}: expansion longer than {VALUE_LIMIT} characters"))


def remove(value: str, pattern: str, op: str, what: str) -> str:
    """``${x#p}``, ``${x##p}`` (shortest, longest prefix), ``${x%p}``, ``${x%%p}`` (shortest, longest suffix)."""
    if not _is_glob(pattern):
        return value.removeprefix(pattern) if op in ("#", "##") else value.removesuffix(pattern)
    _check(value, pattern, what)
    whole = re.compile(fnmatch.translate(pattern))
    n = len(value)
    if op in ("#", "##"):
        for end in range(n + 1) if op == "#" else range(n, -1, -1):
            if whole.fullmatch(value, 0, end):
                return value[end:]
    else:
        for start in range(n, -1, -1) if op == "%" else range(n + 1):
            if whole.fullmatch(value, start):
                return value[:start]
    return value


def replace(value: str, pattern: str, replacement: str, anchor: str, every: bool, what: str) -> str:
    """``${x/p/r}`` (the first longest match), ``${x//p/r}`` (each), ``${x/#p/r}`` and ``${x/%p/r}`` (anchored)."""
    if anchor:
        cut = remove(value, pattern, "##" if anchor == "#" else "%%", what)
        if cut == value and not (pattern == "" or _matches_empty(pattern)):
            return value
        result = replacement + cut if anchor == "#" else cut + replacement
        _checked(len(result), what)
        return result
    if not pattern:
        return value
    if not _is_glob(pattern):
        found = value.count(pattern) if every else min(1, value.count(pattern))
        _checked(len(value) + found * (len(replacement) - len(pattern)), what)
        return value.replace(pattern, replacement, -1 if every else 1)
    _check(value, pattern, what)
    glob = _Glob(pattern, value)
    out: list[str] = []
    size, i, n = 0, 0, len(value)
    while i < n:
        end = glob.longest(i)
        if end > i:
            out.append(replacement)
            size += len(replacement)
            _checked(size + n - end, what)
            i = end
            if not every:
                break
        else:
            out.append(value[i])
            size += 1
            i += 1
    return "".join(out) + value[i:]


def _matches_empty(pattern: str) -> bool:
    return fnmatch.fnmatchcase("", pattern)


def split_stars(pattern: str) -> list[str]:
    """The pieces of a glob pattern between its stars (a ``*`` inside ``[...]`` is not one)."""
    pieces, start, i, n = [], 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            pieces.append(pattern[start:i])
            start = i + 1
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            close = pattern.find("]", j)
            if close >= 0:
                i = close
        i += 1
    pieces.append(pattern[start:])
    return pieces


class _Glob:
    """A glob pattern as its fixed-length pieces between stars, matched against one value."""

    def __init__(self, pattern: str, value: str) -> None:
        self.value = value
        # fnmatch.translate gives "(?s:PIECE)\Z"; a piece without a star is a plain expression of fixed length.
        self.pieces = [re.compile(fnmatch.translate(piece)[4:-3], re.S) for piece in split_stars(pattern)]
        self.last_at = -1
        if len(self.pieces) > 1:
            last = self.pieces[-1]
            self.last_at = next((s for s in range(len(value), -1, -1) if last.match(value, s)), -1)

    def longest(self, i: int) -> int:
        """The end of the longest match starting at ``i``, or -1.

        The first piece must match at ``i`` and each middle piece as early as it can; the last piece
        then matches at its latest place in the value, if that is after them.
        """
        value, pieces = self.value, self.pieces
        first = pieces[0].match(value, i)
        if first is None:
            return -1
        if len(pieces) == 1:
            return first.end()
        at = first.end()
        for piece in pieces[1:-1]:
            found = piece.search(value, at)
            if found is None:
                return -1
            at = found.end()
        if self.last_at < at:
            return -1
        last = pieces[-1].match(value, self.last_at)
        assert last is not None
        return last.end()
