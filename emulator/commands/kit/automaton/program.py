"""The syntax tree compiled to a Thompson NFA program, and the epsilon closures every matcher walks.

Instructions are ``CHAR`` (consume one character a ``CharSet`` accepts),
``SPLIT`` (try the first branch, then the second), ``JMP``, ``SAVE`` (record a
capture position), ``ASSERT`` (a zero-width test of the characters either
side), ``MATCH``, and ``LSTART``/``LCHECK``, which give a repeat whose body can
match empty Python's rule: an iteration that consumed nothing ends the repeat
(``re``'s ``MAX_UNTIL``/``MIN_UNTIL`` compare the position with the one the
iteration started at). Counted repeats are unrolled; the size is checked first.

The epsilon closure of a step (``walk``) depends on the contexts either side:
bit masks of the character on each side (``EDGE`` for the string's ends) that
the assertions read. The DFA and the Pike VM share it.
"""

from __future__ import annotations

from collections.abc import Iterator

from emulator.commands.kit.automaton.errors import MAX_INSTRUCTIONS, MAX_MEMO, PatternTooLarge
from emulator.commands.kit.automaton.syntax import (
    AHEAD,
    BEHIND,
    BOL_ML,
    BOS,
    EOL,
    EOL_ML,
    EOS,
    NOT_AHEAD,
    NOT_BEHIND,
    NOT_WORD_B,
    WORD_B,
    Alt,
    Assert,
    Atom,
    CharSet,
    Concat,
    Group,
    Node,
    Parsed,
    Repeat,
)

CHAR, MATCH, JMP, SPLIT, SAVE, ASSERT, LSTART, LCHECK = range(8)
# Context bits: a string end, a word character, a newline, a newline that is the last character.
EDGE, WORD, NEWLINE, LAST_NEWLINE = 1, 2, 4, 8
#: The transition key of a newline that is the last character before the end (for ``$``).
LAST_NEWLINE_KEY = "\n\n"
#: Every character, for the unanchored search's leading loop.
ANY = CharSet("(?s:.)", 0, everything=True)
_EMPTY: frozenset[int] = frozenset()
#: Capture positions: group g at ``2g``, ``2g+1`` (-1 unset), then the group closed last (0: none).
Slots = tuple[int, ...]
#: What a walk reaches: (CHAR or MATCH instruction, index of the thread it came from, slots saved, group closed).
Reach = tuple[int, int, tuple[int, ...], int]


def instructions(node: Node) -> int:
    """Instructions the node compiles to, forward (saturating just above the limit)."""
    if isinstance(node, (Atom, Assert)):
        return 1
    if isinstance(node, Group):
        return 2 + instructions(node.body)
    if isinstance(node, Concat):
        return min(sum(instructions(item) for item in node.items), MAX_INSTRUCTIONS + 1)
    if isinstance(node, Alt):
        return min(sum(instructions(item) for item in node.items) + 2 * len(node.items) - 2, MAX_INSTRUCTIONS + 1)
    body = instructions(node.body)
    checks = 2 if min_width(node.body) == 0 else 0
    optional = body + 2 + checks // 2 if node.hi is None else (node.hi - node.lo) * (body + 1 + checks)
    return min(node.lo * body + optional, MAX_INSTRUCTIONS + 1)


def min_width(node: Node) -> int:
    if isinstance(node, Atom):
        return 1
    if isinstance(node, Assert):
        return 0
    if isinstance(node, Group):
        return min_width(node.body)
    if isinstance(node, Concat):
        return sum(min_width(item) for item in node.items)
    if isinstance(node, Alt):
        return min(min_width(item) for item in node.items)
    return node.lo * min_width(node.body)


def max_width(node: Node) -> int | None:
    """The longest match the node can make; None when unbounded."""
    if isinstance(node, Atom):
        return 1
    if isinstance(node, Assert):
        return 0
    if isinstance(node, Group):
        return max_width(node.body)
    if isinstance(node, Repeat):
        body = max_width(node.body)
        if body == 0 or node.hi == 0:
            return 0
        return None if node.hi is None or body is None else body * node.hi
    total = 0
    for item in node.items:
        width = max_width(item)
        if width is None:
            return None
        total = total + width if isinstance(node, Concat) else max(total, width)
    return total


class Program:
    """A pattern's NFA, forward (with captures and the unanchored loop) or reversed (for finding starts)."""

    def __init__(self, parsed: Parsed, reverse: bool) -> None:
        size = instructions(parsed.tree)
        if size > MAX_INSTRUCTIONS:
            raise PatternTooLarge(f"its repeats unroll to more than {MAX_INSTRUCTIONS} instructions")
        self.reverse = reverse
        self.ops: list[int] = []
        self.arg: list[int] = []
        self.arg2: list[int] = []
        self.arg3: list[int] = []
        self.sets: list[CharSet] = []
        self.look = parsed.look
        self.loops = 0
        self.uses = 0  # the context bits any assertion reads
        self.edges = 0  # all bits when the pattern has an assertion: without one, every context is 0
        if reverse:
            self.start = self.unanchored = 0
        else:
            self.unanchored = self._add(SPLIT, 3, 1)
            self._add(CHAR, chars=ANY)
            self._add(JMP, 0)
            self.start = self._add(SAVE, 0)
        self._emit(parsed.tree)
        if not reverse:
            self._add(SAVE, 1)
        self.match = self._add(MATCH)
        self.slots = 2 * parsed.groups + 2
        self._masks: dict[str, int] = {}

    # -- building --------------------------------------------------------------------------
    def _add(self, op: int, arg: int = 0, arg2: int = 0, arg3: int = 0, chars: CharSet = ANY) -> int:
        self.ops.append(op)
        self.arg.append(arg)
        self.arg2.append(arg2)
        self.arg3.append(arg3)
        self.sets.append(chars)
        return len(self.ops) - 1

    def _emit(self, node: Node) -> None:
        if isinstance(node, Atom):
            self._add(CHAR, chars=node.chars)
        elif isinstance(node, Assert):
            self.uses |= {WORD_B: WORD, NOT_WORD_B: WORD, EOL: LAST_NEWLINE, EOL_ML: NEWLINE,
                          BOL_ML: NEWLINE}.get(node.kind, 0)
            if node.kind in (BEHIND, NOT_BEHIND, AHEAD, NOT_AHEAD):
                self.uses |= 16 << node.arg
            self.edges = -1
            self._add(ASSERT, node.kind, node.arg)
        elif isinstance(node, Group):
            if not self.reverse:
                self._add(SAVE, 2 * node.index)
            self._emit(node.body)
            if not self.reverse:
                self._add(SAVE, 2 * node.index + 1)
        elif isinstance(node, Concat):
            for item in reversed(node.items) if self.reverse else node.items:
                self._emit(item)
        elif isinstance(node, Alt):
            jumps = []
            for item in node.items[:-1]:
                split = self._add(SPLIT, len(self.ops) + 1)
                self._emit(item)
                jumps.append(self._add(JMP))
                self.arg2[split] = len(self.ops)
            self._emit(node.items[-1])
            for jump in jumps:
                self.arg[jump] = len(self.ops)
        else:
            self._emit_repeat(node)

    def _emit_repeat(self, node: Repeat) -> None:
        for _ in range(node.lo):
            self._emit(node.body)
        # An iteration that can match empty is checked, as re does; the reverse program needs no check.
        checked = min_width(node.body) == 0 and not self.reverse
        splits: list[tuple[int, int]] = []
        checks: list[int] = []
        copies = 1 if node.hi is None else node.hi - node.lo
        for _ in range(copies):
            split = self._add(SPLIT)
            loop = self.loops
            self.loops += 1
            if checked:
                self._add(LSTART, loop)
            self._emit(node.body)
            if node.hi is None:
                checks.append(self._add(LCHECK, loop, split) if checked else self._add(JMP, split))
            elif checked:
                checks.append(self._add(LCHECK, loop, len(self.ops) + 1))
            splits.append((split, split + 1))
        end = len(self.ops)
        for split, body in splits:
            self.arg[split], self.arg2[split] = (body, end) if node.greedy else (end, body)
        for check in checks:
            self.arg3[check] = end

    # -- contexts --------------------------------------------------------------------------
    def mask(self, c: str) -> int:
        """The context bits of one character (or of ``LAST_NEWLINE_KEY``) that assertions read."""
        uses = self.uses
        if not uses:
            return 0
        found = self._masks.get(c)
        if found is not None:
            return found
        ch = c[0]
        bits = 0
        if uses & WORD and (ch.isalnum() or ch == "_"):
            bits |= WORD
        if ch == "\n":
            bits |= NEWLINE | (LAST_NEWLINE if c == LAST_NEWLINE_KEY else 0)
        for k, chars in enumerate(self.look):
            if chars.test(ch):
                bits |= 16 << k
        bits &= uses
        if len(self._masks) >= MAX_MEMO:
            self._masks.clear()
        self._masks[c] = bits
        return bits

    def key(self, text: str, i: int, endpos: int) -> str:
        """The transition key of ``text[i]``: the character, or ``LAST_NEWLINE_KEY`` for a final newline."""
        c = text[i]
        return LAST_NEWLINE_KEY if c == "\n" and i == endpos - 1 and self.uses & LAST_NEWLINE else c

    def left(self, text: str, i: int) -> int:
        return (EDGE if i == 0 else self.mask(text[i - 1])) & self.edges

    def right(self, text: str, i: int, endpos: int) -> int:
        return (EDGE if i >= endpos else self.mask(self.key(text, i, endpos))) & self.edges

    def _holds(self, kind: int, arg: int, left: int, right: int) -> bool:
        if self.reverse:
            left, right = right, left
        if kind == BOS:
            return bool(left & EDGE)
        if kind == EOL:
            return bool(right & (EDGE | LAST_NEWLINE))
        if kind == EOS:
            return bool(right & EDGE)
        if kind == BOL_ML:
            return bool(left & (EDGE | NEWLINE))
        if kind == EOL_ML:
            return bool(right & (EDGE | NEWLINE))
        if kind == WORD_B:
            return bool(left & WORD) != bool(right & WORD)
        if kind == NOT_WORD_B:
            return bool(left & WORD) == bool(right & WORD) and not (left & right & EDGE)
        bit = 16 << arg
        if kind in (BEHIND, NOT_BEHIND):
            return bool(left & bit) == (kind == BEHIND)
        return bool(right & bit) == (kind == AHEAD)

    # -- closures --------------------------------------------------------------------------
    def walk(self, pcs: tuple[int, ...], prev: int, nxt: int) -> Iterator[Reach]:
        """Every CHAR and MATCH instruction the threads at ``pcs`` reach without consuming, in priority order,
        each once (the first thread to arrive wins): the epsilon closure of one step, ``prev`` and ``nxt``
        being the contexts behind and ahead in scan order. Each comes with the thread it came from, the slots
        the path saved, and the group it closed last (0: none). One walk visits each (instruction, open empty
        iterations) pair once: linear in the program."""
        ops, arg, arg2, arg3 = self.ops, self.arg, self.arg2, self.arg3
        seen: set[object] = set()
        targets: set[int] = set()
        for origin, first in enumerate(pcs):
            stack: list[tuple[int, frozenset[int], tuple[int, ...], int]] = [(first, _EMPTY, (), 0)]
            while stack:
                pc, loops, saves, closed = stack.pop()
                key = (pc, loops) if loops else pc
                if key in seen:
                    continue
                seen.add(key)
                op = ops[pc]
                if op in (CHAR, MATCH):
                    if pc not in targets:
                        targets.add(pc)
                        yield pc, origin, saves, closed
                elif op == JMP:
                    stack.append((arg[pc], loops, saves, closed))
                elif op == SPLIT:
                    stack.append((arg2[pc], loops, saves, closed))
                    stack.append((arg[pc], loops, saves, closed))
                elif op == SAVE:
                    slot = arg[pc]
                    stack.append((pc + 1, loops, saves + (slot,), slot // 2 if slot % 2 and slot > 1 else closed))
                elif op == ASSERT:
                    if self._holds(arg[pc], arg2[pc], prev, nxt):
                        stack.append((pc + 1, loops, saves, closed))
                elif op == LSTART:
                    stack.append((pc + 1, loops | {arg[pc]}, saves, closed))
                elif arg[pc] in loops:  # LCHECK after an iteration that consumed nothing: the repeat ends
                    stack.append((arg3[pc], loops - {arg[pc]}, saves, closed))
                else:
                    stack.append((arg2[pc], loops, saves, closed))
