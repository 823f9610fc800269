"""Brace expansion: ``{a,b}``, ``{1..8}``, ``{01..16}``, ``{a..e}``, nested, read as bash reads them.

The word is read once into pieces (text, or a choice among alternatives that are
pieces themselves), which tells how many words it makes and how long they are
before any is made. Past :data:`~emulator.limits.BRACE_LIMIT` words or
:data:`~emulator.limits.VALUE_LIMIT` characters the expansion is refused with a
message, and nesting stops at :data:`~emulator.limits.NESTING_LIMIT`. A ``{``
that opens no valid expression stays as it is, and the search goes on after it
(``{x{a,b}}`` is ``{xa} {xb}``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.limits import BRACE_LIMIT, NESTING_LIMIT, VALUE_LIMIT, limit_reached
from emulator.shell.expand.env import ExpansionError
from emulator.shell.lexer import Lit, Word, too_deep

_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([a-zA-Z])\.\.([a-zA-Z])")


@dataclass
class _Choice:
    """``{a,b,c}`` or a sequence: the alternatives, each a list of pieces."""

    alternatives: list[list[str | _Choice]]


Pieces = list[str | _Choice]


class _Reader:
    """One word's braces: which ``}`` closes each ``{``, and the commas directly inside each."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.closing: dict[int, int] = {}
        self.commas: dict[int, list[int]] = {}
        opened: list[int] = []
        for found in re.finditer(r"[{},]", text):
            c, at = found.group(), found.start()
            if c == "{":
                opened.append(at)
            elif c == "}":
                if opened:
                    self.closing[opened.pop()] = at
            elif opened:
                self.commas.setdefault(opened[-1], []).append(at)

    def pieces(self, start: int, end: int, depth: int) -> Pieces:
        """The pieces of ``text[start:end]``."""
        if depth > NESTING_LIMIT:
            raise too_deep()
        text, plain = self.text, start
        pieces: Pieces = []
        at = text.find("{", start, end)
        while at >= 0:
            choice = self._choice(at, depth)
            if choice is None:
                at = text.find("{", at + 1, end)
                continue
            if plain < at:
                pieces.append(text[plain:at])
            pieces.append(choice)
            plain = self.closing[at] + 1
            at = text.find("{", plain, end)
        if plain < end:
            pieces.append(text[plain:end])
        return pieces

    def _choice(self, at: int, depth: int) -> _Choice | None:
        close = self.closing.get(at)
        if close is None:
            return None
        commas = self.commas.get(at)
        if commas:
            bounds = [at, *commas, close]
            return _Choice([self.pieces(a + 1, b, depth + 1) for a, b in zip(bounds, bounds[1:])])
        words = self._sequence(at + 1, close)
        return None if words is None else _Choice([[word] for word in words])

    def _sequence(self, start: int, end: int) -> list[str] | None:
        """``1..8``, ``01..16``, ``1..10..3`` or ``a..e`` between ``start`` and ``end``, or None."""
        m = _RANGE.fullmatch(self.text, start, end)
        if m is None:
            return None
        if m.group(4):
            a, b = ord(m.group(4)), ord(m.group(5))
            step = 1 if b >= a else -1
            return [chr(c) for c in range(a, b + step, step)]
        lo, hi = m.group(1), m.group(2)
        step = abs(int(m.group(3) or 1)) or 1
        a, b = int(lo), int(hi)
        if abs(b - a) // step + 1 > BRACE_LIMIT:
            raise _too_many(self.text)
        width = max(len(lo), len(hi)) if (lo.lstrip("-").startswith("0") or hi.lstrip("-").startswith("0")) else 0
        direction = step if b >= a else -step
        return [f"{n:0{width}d}" for n in range(a, b + (1 if b >= a else -1), direction)]


def _too_many(text: str) -> ExpansionError:
    return ExpansionError(limit_reached(f"{text}: brace expansion makes more than {BRACE_LIMIT} words"))


def _measure(pieces: Pieces, text: str) -> tuple[int, int]:
    """(words, characters in all) that ``pieces`` make; raises past the limits."""
    count, size = 1, 0
    for piece in pieces:
        if isinstance(piece, str):
            more, length = 1, len(piece)
        else:
            more = length = 0
            for alternative in piece.alternatives:
                words, chars = _measure(alternative, text)
                more, length = more + words, length + chars
        count, size = count * more, size * more + length * count
        if count > BRACE_LIMIT:
            raise _too_many(text)
        if size > VALUE_LIMIT:
            raise ExpansionError(limit_reached(f"{text}: brace expansion longer than {VALUE_LIMIT} characters"))
    return count, size


def _words(pieces: Pieces) -> list[str]:
    words = [""]
    for piece in pieces:
        options = [piece] if isinstance(piece, str) else [w for alt in piece.alternatives for w in _words(alt)]
        words = [word + option for word in words for option in options]
    return words


def brace_expand(text: str) -> list[str]:
    """The words ``text`` makes, in bash's order (raises :class:`ExpansionError` past the limits)."""
    pieces = _Reader(text).pieces(0, len(text), 0)
    _measure(pieces, text)
    return _words(pieces)


def braces(word: Word) -> list[Word]:
    """Brace expansion applies to a word whose unquoted literal parts hold the braces."""
    if len(word.parts) != 1 or not isinstance(word.parts[0], Lit) or word.parts[0].quoted:
        # Mixed words: expand braces only inside leading unquoted literal text.
        if word.parts and isinstance(word.parts[0], Lit) and not word.parts[0].quoted and "{" in word.parts[0].text \
                and "}" in word.parts[0].text:
            head = word.parts[0].text
            return [Word([Lit(h, False), *word.parts[1:]], word.raw) for h in brace_expand(head)]
        return [word]
    text = word.parts[0].text
    if "{" not in text or "}" not in text:
        return [word]
    return [Word([Lit(t, False)], t) for t in brace_expand(text)]
