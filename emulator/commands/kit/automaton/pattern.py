"""``compile``, ``Pattern`` and ``Match``: ``re``'s interface over the automaton, with ``re``'s results.

A search runs in up to three linear passes: a literal prefilter (``str.find``
for a string every match must contain), the forward lazy DFA (is there a
match, and where does the leftmost-first one end), the reversed DFA (where
does it start; skipped when every match has one width), and, only when the
pattern has groups, the Pike VM from that start for the captures. Iterating
(``finditer``, ``sub``, ``split``) follows ``re`` 3.7+: an empty match is
allowed next to a previous match, but not at the position where the previous
empty match was found.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, overload

from emulator.commands.kit.automaton.analysis import Prefilter, anchored_at_start
from emulator.commands.kit.automaton.dfa import LazyDFA
from emulator.commands.kit.automaton.errors import NeedsBacktracking, PatternTooLarge
from emulator.commands.kit.automaton.pike import captures
from emulator.commands.kit.automaton.program import Program, max_width, min_width
from emulator.commands.kit.automaton.syntax import UNSUPPORTED_FLAGS, parse
from emulator.commands.kit.automaton.template import Template, expand, parse_template

Regs = tuple[tuple[int, int], ...]


def compile(pattern: str, flags: int = 0) -> Pattern:
    """The automaton of a Python regular expression.

    Raises Python's own ``re.error`` for a pattern ``re`` rejects,
    ``NeedsBacktracking`` for one only a backtracking matcher can run, and
    ``PatternTooLarge`` (an ``re.error``) past ``MAX_INSTRUCTIONS``.
    """
    try:
        return Pattern(pattern, flags)
    except RecursionError:
        raise PatternTooLarge("its groups nest too deeply") from None


class Pattern:
    """A compiled pattern; the methods and results are ``re.Pattern``'s."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        if not isinstance(pattern, str):
            raise TypeError("the automaton compiles str patterns only")
        if flags & UNSUPPORTED_FLAGS:
            raise NeedsBacktracking("the VERBOSE, ASCII, LOCALE or DEBUG flag")
        checked = re.compile(pattern, flags)  # Python's own syntax errors; nothing is matched here
        parsed = parse(pattern, flags)
        self.pattern = pattern
        self.flags = checked.flags
        self.groups = checked.groups
        self.groupindex: Mapping[str, int] = checked.groupindex
        self._names = {index: name for name, index in checked.groupindex.items()}
        self._program = Program(parsed, reverse=False)
        self._reverse = Program(parsed, reverse=True)
        self._search_dfa = LazyDFA(self._program, self._program.unanchored, first=True)
        self._match_dfa = LazyDFA(self._program, self._program.start, first=True)
        self._full_dfa = LazyDFA(self._program, self._program.start, first=True, full=True)
        self._start_dfa = LazyDFA(self._reverse, self._reverse.start, first=False)
        width = max_width(parsed.tree)
        self._width = width if width == min_width(parsed.tree) else None
        self._anchored = anchored_at_start(parsed.tree)
        self._prefilter = Prefilter(parsed.tree)
        self._templates: dict[str, Template] = {}

    def __repr__(self) -> str:
        return f"automaton.compile({self.pattern!r})"

    # -- the matcher -----------------------------------------------------------------------
    def _find(self, text: str, pos: int, endpos: int, mode: int, no_empty: bool, origin: int = -1) -> Match | None:
        """The match from ``pos`` (mode 0: searching on; 1: anchored there; 2: also reaching ``endpos``);
        ``origin`` is the ``pos`` the match reports (an iteration's first)."""
        shown = pos if origin < 0 else origin
        if pos > endpos:
            return None
        begin = self._prefilter.start(text, pos, endpos)
        if begin < 0:
            return None
        if mode == 0 and self._anchored:
            if pos:
                return None
            mode = 1
        if mode:
            end = (self._match_dfa, self._full_dfa)[mode - 1].forward(text, pos, endpos, no_empty)
        else:  # no match starts before ``begin``; the refusal of an empty match concerns ``pos`` only
            end = self._search_dfa.forward(text, begin, endpos, no_empty and begin == pos)
        if end < 0:
            return None
        if mode:
            start = pos
        elif self._width is not None:
            start = end - self._width
        else:
            start = self._start_dfa.backward(text, end, begin, endpos)
        if not self.groups:
            return Match(self, text, shown, endpos, ((start, end),), 0)
        slots = captures(self._full_dfa if mode == 2 else self._match_dfa, text, start, end, endpos,
                         no_empty and start == pos)
        regs = tuple((slots[k], slots[k + 1]) if slots[k] >= 0 and slots[k + 1] >= 0 else (-1, -1)
                     for k in range(0, len(slots) - 1, 2))
        return Match(self, text, shown, endpos, ((start, end),) + regs[1:], slots[-1])

    @staticmethod
    def _bounds(text: str, pos: int, endpos: int | None) -> tuple[int, int]:
        if not isinstance(text, str):
            raise TypeError(f"expected string, got {type(text).__name__!r} (the automaton matches str only)")
        n = len(text)
        end = n if endpos is None else min(max(endpos, 0), n)
        return min(max(pos, 0), n), end

    def _matches(self, text: str, pos: int, endpos: int | None) -> Iterator[Match]:
        pos, end = self._bounds(text, pos, endpos)
        origin = pos
        no_empty = False
        while pos <= end:
            m = self._find(text, pos, end, 0, no_empty, origin)
            if m is None:
                return
            yield m
            start, pos = m.span()
            no_empty = start == pos

    # -- re's interface --------------------------------------------------------------------
    def search(self, string: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        pos, end = self._bounds(string, pos, endpos)
        return self._find(string, pos, end, 0, False)

    def match(self, string: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        pos, end = self._bounds(string, pos, endpos)
        return self._find(string, pos, end, 1, False)

    def fullmatch(self, string: str, pos: int = 0, endpos: int | None = None) -> Match | None:
        pos, end = self._bounds(string, pos, endpos)
        return self._find(string, pos, end, 2, False)

    def test(self, string: str, pos: int = 0, endpos: int | None = None) -> bool:
        """``search(...) is not None``, faster: the scan stops at the first position any match ends."""
        pos, end = self._bounds(string, pos, endpos)
        begin = -1 if pos > end else self._prefilter.start(string, pos, end)
        if begin < 0:
            return False
        if self._anchored:
            return pos == 0 and self._match_dfa.forward(string, 0, end, False, earliest=True) >= 0
        return self._search_dfa.forward(string, begin, end, False, earliest=True) >= 0

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[Match]:
        return self._matches(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        out: list[Any] = []
        for m in self._matches(string, pos, endpos):
            if self.groups == 0:
                out.append(m.group())
            elif self.groups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(tuple(g or "" for g in m.groups()))
        return out

    def _template(self, repl: str) -> Template:
        found = self._templates.get(repl)
        if found is None:
            found = parse_template(repl, self.groups, self.groupindex)
            if len(self._templates) >= 256:
                self._templates.clear()
            self._templates[repl] = found
        return found

    def subn(self, repl: str | Callable[[Match], str], string: str, count: int = 0) -> tuple[str, int]:
        if callable(repl):
            replace = repl
        else:
            template = self._template(repl)
            if template[1]:
                def replace(m: Match) -> str:
                    return expand(template, m._group)
            else:
                text = expand(template, lambda _: None)

                def replace(m: Match) -> str:
                    return text
        out: list[str] = []
        done = last = 0
        for m in self._matches(string, 0, None):
            if count and done >= count:
                break
            start, end = m.span()
            out.append(string[last:start])
            piece = replace(m)
            if piece is not None:
                out.append(piece)
            last = end
            done += 1
        out.append(string[last:])
        return "".join(out), done

    def sub(self, repl: str | Callable[[Match], str], string: str, count: int = 0) -> str:
        return self.subn(repl, string, count)[0]

    def split(self, string: str, maxsplit: int = 0) -> list[str | None]:
        out: list[str | None] = []
        last = 0
        for done, m in enumerate(self._matches(string, 0, None)):
            if maxsplit and done >= maxsplit:
                break
            start, end = m.span()
            out.append(string[last:start])
            out.extend(m.groups())
            last = end
        out.append(string[last:])
        return out


class Match:
    """One match; the attributes and methods are ``re.Match``'s."""

    __slots__ = ("re", "string", "pos", "endpos", "regs", "lastindex")

    def __init__(self, pattern: Pattern, string: str, pos: int, endpos: int, regs: Regs, lastindex: int) -> None:
        self.re = pattern
        self.string = string
        self.pos = pos
        self.endpos = endpos
        self.regs = regs if len(regs) == pattern.groups + 1 else regs + ((-1, -1),) * (pattern.groups + 1 - len(regs))
        self.lastindex = lastindex or None

    def __repr__(self) -> str:
        return f"<automaton.Match object; span={self.span()!r}, match={self.group()!r}>"

    def __bool__(self) -> bool:
        return True

    def _index(self, group: int | str) -> int:
        if isinstance(group, str):
            index = self.re.groupindex.get(group)
            if index is None:
                raise IndexError("no such group")
            return index
        if isinstance(group, int) and 0 <= group < len(self.regs):
            return group
        raise IndexError("no such group")

    def _group(self, group: int | str) -> str | None:
        start, end = self.regs[self._index(group)]
        return None if start < 0 else self.string[start:end]

    # Typed as typeshed types re.Match: a group may be None, but callers are not made to say so.
    @overload
    def group(self, /) -> str: ...
    @overload
    def group(self, group: int | str, /) -> str | Any: ...
    @overload
    def group(self, group1: int | str, group2: int | str, /, *groups: int | str) -> tuple[str | Any, ...]: ...

    def group(self, *groups: int | str) -> str | Any | tuple[str | Any, ...]:
        if not groups:
            return self._group(0)
        if len(groups) == 1:
            return self._group(groups[0])
        return tuple(self._group(g) for g in groups)

    def __getitem__(self, group: int | str) -> str | Any:
        return self._group(group)

    def groups(self, default: Any = None) -> tuple[str | Any, ...]:
        return tuple(default if (g := self._group(k)) is None else g for k in range(1, len(self.regs)))

    def groupdict(self, default: Any = None) -> dict[str, str | Any]:
        return {name: default if (g := self._group(name)) is None else g for name in self.re.groupindex}

    def start(self, group: int | str = 0) -> int:
        return self.regs[self._index(group)][0]

    def end(self, group: int | str = 0) -> int:
        return self.regs[self._index(group)][1]

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self.regs[self._index(group)]

    @property
    def lastgroup(self) -> str | None:
        return None if self.lastindex is None else self.re._names.get(self.lastindex)

    def expand(self, template: str) -> str:
        return expand(self.re._template(template), self._group)

