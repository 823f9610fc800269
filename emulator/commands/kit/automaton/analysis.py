"""What a syntax tree promises before any text is read: a literal every match holds, and anchoring.

The prefilter turns the common "does this line match" into one ``str.find``
(C speed) for the lines that cannot match.
"""

from __future__ import annotations

from emulator.commands.kit.automaton.program import max_width
from emulator.commands.kit.automaton.syntax import BOS, Alt, Assert, Atom, Concat, Group, Node, Repeat


def anchored_at_start(node: Node) -> bool:
    """Whether every match starts at the string's start (``^`` without MULTILINE, or ``\\A``, first)."""
    if isinstance(node, Assert):
        return node.kind == BOS
    if isinstance(node, Group):
        return anchored_at_start(node.body)
    if isinstance(node, Alt):
        return all(anchored_at_start(item) for item in node.items)
    if isinstance(node, Repeat):
        return node.lo >= 1 and anchored_at_start(node.body)
    if isinstance(node, Concat):
        for item in node.items:
            if anchored_at_start(item):
                return True
            if not isinstance(item, Assert):
                return False
    return False


def _flatten(node: Node) -> list[Node]:
    """A concatenation's items with groups and nested concatenations opened (both are transparent)."""
    if isinstance(node, Group):
        return _flatten(node.body)
    if isinstance(node, Concat):
        return [leaf for item in node.items for leaf in _flatten(item)]
    return [node]


def _runs(node: Node) -> list[tuple[list[tuple[str, bool]], int | None]]:
    """Runs of adjacent literal characters every match holds, as (character, case-sensitive) pairs, each with
    the most characters a match can hold before the run (None: unbounded or unknown)."""
    runs: list[tuple[list[tuple[str, bool]], int | None]] = []
    run: list[tuple[str, bool]] = []
    offset: int | None = 0  # the most characters before the current run
    for item in _flatten(node):
        if isinstance(item, Atom) and item.chars.char is not None:
            run.append((item.chars.char, True))
        elif isinstance(item, Atom) and item.chars.folded is not None:
            run.append((item.chars.folded, False))
        elif not isinstance(item, Assert):
            if run:
                runs.append((run, offset))
            if isinstance(item, Repeat) and item.lo >= 1:
                runs.extend((inner, None) for inner, _ in _runs(item.body))
            width = max_width(item)
            offset = None if offset is None or width is None else offset + len(run) + width
            run = []
    if run:
        runs.append((run, offset))
    return runs


class Prefilter:
    """A necessary condition for a match: the longest required literal is in the text.

    When the literal's distance from the match's start is bounded, ``start`` also
    says where the search may begin: a match cannot start earlier.
    """

    def __init__(self, tree: Node) -> None:
        runs = _runs(tree)
        exact = [(run, offset) for run, offset in runs if all(sensitive for _, sensitive in run)]
        folded = [(run, offset) for run, offset in runs if all(c.isascii() for c, _ in run)]
        best = max(exact or folded, key=lambda r: (len(r[0]), r[1] is not None), default=([], None))
        self.text = "".join(c if exact else c.lower() for c, _ in best[0])
        self.exact = bool(exact)
        self.offset = best[1]
        self._last: tuple[str, str | None] = ("", "")  # the last text seen, lowercased (None: not ASCII)

    def start(self, text: str, pos: int, endpos: int) -> int:
        """The earliest position a match can start at, or -1 when the text cannot match."""
        if not self.text:
            return pos
        if self.exact:
            found = text.find(self.text, pos, endpos)
        else:
            if self._last[0] is not text:  # iterating over one text lowercases it once
                self._last = (text, text.lower() if text.isascii() else None)
            lowered = self._last[1]
            if lowered is None:
                return pos
            found = lowered.find(self.text, pos, endpos)
        if found < 0:
            return -1
        return pos if self.offset is None else max(pos, found - self.offset)
