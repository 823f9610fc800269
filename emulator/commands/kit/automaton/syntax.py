"""The pattern's syntax tree: Python's regular-expression grammar, read the way ``re`` reads it.

The parser follows ``re._parser`` token by token, so a pattern means here what
it means to ``re``; it runs only on patterns ``re.compile`` has already
accepted, so it never reports a syntax error of its own. A character position
(a literal, ``.``, ``\\w``, a bracket expression) is kept as its source text
and asks ``re`` itself, one character at a time, which characters it accepts:
Unicode classes and case folding are then exactly Python's.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from dataclasses import dataclass

from emulator.commands.kit.automaton.errors import MAX_MEMO, NeedsBacktracking

# Zero-width assertions: the kind, tested against the characters either side.
BOS, EOL, EOL_ML, BOL_ML, EOS, WORD_B, NOT_WORD_B, BEHIND, NOT_BEHIND, AHEAD, NOT_AHEAD = range(11)
_DIGITS = "0123456789"
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"
_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": re.UNICODE, "x": re.VERBOSE,
          "a": re.ASCII, "L": re.LOCALE, "t": 1}
#: Flags that change how the pattern parses or what a class means: refused.
UNSUPPORTED_FLAGS = re.VERBOSE | re.ASCII | re.LOCALE | re.DEBUG | 1


class CharSet:
    """One character position: which characters it accepts, asked of ``re`` once per character."""

    __slots__ = ("source", "literal", "folded", "char", "everything", "_compiled", "_memo")

    def __init__(self, source: str, flags: int, literal: str | None = None, everything: bool = False) -> None:
        self.source = source
        self.everything = everything
        self.literal = literal
        ignore = bool(flags & re.IGNORECASE)
        #: The one character a case-sensitive literal accepts (tested by equality).
        self.char = literal if not ignore else None
        #: A case-insensitive ASCII literal, lowercased (for the prefilter on ASCII text).
        self.folded = literal.lower() if ignore and literal is not None and literal.isascii() else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._compiled = re.compile(source, flags & (re.IGNORECASE | re.DOTALL))
        self._memo: dict[str, bool] = {}

    def test(self, c: str) -> bool:
        if self.char is not None:
            return c == self.char
        if self.everything:
            return True
        hit = self._memo.get(c)
        if hit is None:
            hit = self._compiled.fullmatch(c) is not None
            if len(self._memo) >= MAX_MEMO:
                self._memo.clear()
            self._memo[c] = hit
        return hit

    def __repr__(self) -> str:
        return f"CharSet({self.source!r})"


@dataclass(slots=True)
class Atom:
    chars: CharSet


@dataclass(slots=True)
class Assert:
    kind: int
    arg: int = 0  # a lookaround's index into the pattern's lookaround sets


@dataclass(slots=True)
class Group:
    index: int
    body: Node


@dataclass(slots=True)
class Concat:
    items: list[Node]


@dataclass(slots=True)
class Alt:
    items: list[Node]


@dataclass(slots=True)
class Repeat:
    body: Node
    lo: int
    hi: int | None  # None: unbounded
    greedy: bool


Node = Atom | Assert | Group | Concat | Alt | Repeat


class Parsed:
    """A parsed pattern: its tree, its global flags, its capture groups and lookaround sets."""

    def __init__(self, tree: Node, flags: int, groups: int, look: list[CharSet]) -> None:
        self.tree = tree
        self.flags = flags
        self.groups = groups
        self.look = look


def parse(pattern: str, flags: int) -> Parsed:
    """The syntax tree of a pattern ``re.compile(pattern, flags)`` accepts."""
    if flags & UNSUPPORTED_FLAGS:
        raise NeedsBacktracking("the VERBOSE, ASCII, LOCALE or DEBUG flag")
    parser = _Parser(pattern, flags)
    tree = parser.alternation(flags, top=True)
    return Parsed(tree, parser.flags, parser.groups, parser.look)


class _GlobalFlags:
    def __init__(self, flags: int) -> None:
        self.flags = flags


class _Parser:
    def __init__(self, pattern: str, flags: int) -> None:
        self.src = pattern
        self.pos = 0
        self.flags = flags
        self.groups = 0
        self.look: list[CharSet] = []
        self.chars: dict[tuple[str, int], CharSet] = {}

    # -- reading ---------------------------------------------------------------------------
    def peek(self) -> str:
        return self.src[self.pos] if self.pos < len(self.src) else ""

    def take(self, text: str) -> bool:
        if self.src.startswith(text, self.pos):
            self.pos += len(text)
            return True
        return False

    def take_while(self, allowed: str, most: int) -> str:
        start = self.pos
        while self.pos < len(self.src) and self.pos - start < most and self.src[self.pos] in allowed:
            self.pos += 1
        return self.src[start:self.pos]

    def until(self, end: str) -> str:
        stop = self.src.index(end, self.pos)
        text = self.src[self.pos:stop]
        self.pos = stop + 1
        return text

    def charset(self, source: str, flags: int, literal: str | None = None) -> CharSet:
        key = (source, flags & (re.IGNORECASE | re.DOTALL))
        found = self.chars.get(key)
        if found is None:
            found = self.chars[key] = CharSet(source, flags, literal)
        return found

    def literal(self, char: str, flags: int) -> Atom:
        return Atom(self.charset(re.escape(char), flags, char))

    # -- grammar ---------------------------------------------------------------------------
    def alternation(self, flags: int, top: bool = False) -> Node:
        items = [self.sequence(self.flags if top else flags)]
        while self.take("|"):
            items.append(self.sequence(self.flags if top else flags))
        return items[0] if len(items) == 1 else Alt(items)

    def sequence(self, flags: int) -> Node:
        items: list[Node] = []
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c in "|)":
                break
            self.pos += 1
            if c == "\\":
                items.append(self.escape(flags))
            elif c == "[":
                items.append(self.bracket(flags))
            elif c in "*+?{":
                if not self.repeat(c, items):
                    items.append(self.literal("{", flags))
            elif c == ".":
                items.append(Atom(self.charset(".", flags)))
            elif c == "(":
                group = self.group(flags)
                if isinstance(group, _GlobalFlags):
                    flags |= group.flags
                elif group is not None:
                    items.append(group)
            elif c == "^":
                items.append(Assert(BOL_ML if flags & re.MULTILINE else BOS))
            elif c == "$":
                items.append(Assert(EOL_ML if flags & re.MULTILINE else EOL))
            else:
                items.append(self.literal(c, flags))
        return items[0] if len(items) == 1 else Concat(items)

    def repeat(self, c: str, items: list[Node]) -> bool:
        """Apply a quantifier to the last item; False when ``{`` turns out to be a literal."""
        lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(c, (0, None))
        if c == "{":
            here = self.pos
            if self.peek() == "}":
                return False
            low = self.take_while(_DIGITS, len(self.src))
            high = self.take_while(_DIGITS, len(self.src)) if self.take(",") else low
            if not self.take("}"):
                self.pos = here
                return False
            lo = int(low) if low else 0
            hi = int(high) if high else None
        greedy = not self.take("?")
        if self.take("+"):
            raise NeedsBacktracking("a possessive repeat")
        items[-1] = Repeat(items[-1], lo, hi, greedy)
        return True

    def escape(self, flags: int) -> Node:
        c = self.src[self.pos]
        self.pos += 1
        kinds = {"A": BOS, "Z": EOS, "b": WORD_B, "B": NOT_WORD_B}
        if c in kinds:
            return Assert(kinds[c])
        if c in "dDsSwW":
            return Atom(self.charset("\\" + c, flags))
        if c in "123456789":
            digits = c + self.take_while(_DIGITS, 1)
            if len(digits) == 2 and c in _OCTAL and digits[1] in _OCTAL and self.peek() and self.peek() in _OCTAL:
                digits += self.take_while(_OCTAL, 1)
                return self.literal(chr(int(digits, 8)), flags)
            raise NeedsBacktracking(f"a backreference \\{digits}")
        return self.literal(self.escaped_char(c), flags)

    def escaped_char(self, c: str) -> str:
        """The character an escape outside a group reference stands for (``c`` follows the backslash)."""
        if c in _ESCAPES:
            return _ESCAPES[c]
        widths = {"x": 2, "u": 4, "U": 8}
        if c in widths:
            return chr(int(self.take_while(_HEX, widths[c]), 16))
        if c == "N":
            self.take("{")
            return unicodedata.lookup(self.until("}"))
        if c == "0":
            return chr(int("0" + self.take_while(_OCTAL, 2), 8))
        return c

    def bracket(self, flags: int) -> Atom:
        """A ``[...]`` set, kept as its source: the first token is always a member, the next ``]`` ends it."""
        start = self.pos - 1
        self.take("^")
        first = True
        while True:
            c = self.src[self.pos]
            self.pos += 2 if c == "\\" else 1
            if c == "]" and not first:
                break
            first = False
        return Atom(self.charset(self.src[start:self.pos], flags))

    def group(self, flags: int) -> Node | _GlobalFlags | None:
        if not self.take("?"):
            self.groups += 1
            index = self.groups
            body = self.alternation(flags)
            self.take(")")
            return Group(index, body)
        c = self.src[self.pos]
        self.pos += 1
        if c == "P":
            if self.take("="):
                raise NeedsBacktracking("a named backreference (?P=name)")
            self.take("<")
            self.until(">")
            self.groups += 1
            index = self.groups
            body = self.alternation(flags)
            self.take(")")
            return Group(index, body)
        if c == ":":
            body = self.alternation(flags)
            self.take(")")
            return body
        if c == "#":
            self.until(")")
            return None
        if c in "=!<":
            return self.lookaround(c, flags)
        if c == "(":
            raise NeedsBacktracking("a conditional group (?(...)...)")
        if c == ">":
            raise NeedsBacktracking("an atomic group (?>...)")
        return self.inline_flags(c, flags)

    def lookaround(self, c: str, flags: int) -> Assert:
        behind = c == "<"
        if behind:
            c = self.src[self.pos]
            self.pos += 1
        groups = self.groups
        body = self.alternation(flags)
        self.take(")")
        while isinstance(body, Concat) and len(body.items) == 1:
            body = body.items[0]
        if not isinstance(body, Atom) or self.groups != groups:
            raise NeedsBacktracking("a lookaround other than one character or class")
        self.look.append(body.chars)
        if behind:
            return Assert(BEHIND if c == "=" else NOT_BEHIND, len(self.look) - 1)
        return Assert(AHEAD if c == "=" else NOT_AHEAD, len(self.look) - 1)

    def inline_flags(self, c: str, flags: int) -> Node | _GlobalFlags:
        on = off = 0
        self.pos -= 1
        while self.peek() in _FLAGS:
            on |= _FLAGS[self.src[self.pos]]
            self.pos += 1
        if self.take("-"):
            while self.peek() in _FLAGS:
                off |= _FLAGS[self.src[self.pos]]
                self.pos += 1
        if (on | off) & UNSUPPORTED_FLAGS:
            raise NeedsBacktracking("the inline flags x, a or L")
        if self.take(")"):
            self.flags |= on
            return _GlobalFlags(on)
        self.take(":")
        body = self.alternation((flags | on) & ~off)
        self.take(")")
        return body
