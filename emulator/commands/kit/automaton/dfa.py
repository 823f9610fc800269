"""A lazy DFA over a program: built one transition at a time, as the text asks for it.

A state is the ordered list of the NFA threads alive after a character (the
order is the threads' priority), the context bits of that character, and
whether the closure that led here held a match. Forward, with ``first=True``,
a match cuts every thread of lower priority: the scan then ends exactly where
``re``'s leftmost-first match ends. Reversed, with ``first=False``, no thread
is cut and the scan reports the furthest position a match reaches: the
leftmost start of a match that ends at a known place.

Each character costs one dictionary lookup once its transition is known, and
at most one closure computation (proportional to the program) when it is
not, so a scan is linear in the text. The cache is bounded: past
``MAX_DFA_STATES`` states or ``MAX_DFA_TRANSITIONS`` transitions it is dropped
and rebuilt from the current state.
"""

from __future__ import annotations

from emulator.commands.kit.automaton.errors import MAX_DFA_STATES, MAX_DFA_THREADS, MAX_DFA_TRANSITIONS
from emulator.commands.kit.automaton.program import EDGE, LAST_NEWLINE, MATCH, Program, Reach

#: A thread's move: (index of the thread it comes from, slots it saves, group it closes last).
Move = tuple[int, tuple[int, ...], int]
#: The moves of every thread of the next state, and the move of the first match (None: no match).
Plan = tuple[tuple[Move, ...], Move | None]


class State(dict[str, "State"]):
    """One DFA state, mapping a character to the next state; a missing transition is computed on first use.

    ``stop`` is set when the scan loop must look: a match ends here, or no thread is left.
    """

    __slots__ = ("dfa", "pcs", "prev", "matched", "dead", "stop", "no_empty", "ends", "plans")

    def __init__(self, dfa: LazyDFA, pcs: tuple[int, ...], prev: int, matched: bool, no_empty: bool) -> None:
        super().__init__()
        self.dfa = dfa
        self.pcs = pcs
        self.prev = prev
        self.matched = matched
        self.dead = not pcs
        self.stop = matched or not pcs
        self.no_empty = no_empty
        self.ends: dict[int, bool] = {}
        self.plans: dict[str | None, Plan] = {}

    def __missing__(self, key: str) -> State:
        return self.dfa.step(self, key)

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


class LazyDFA:
    """The DFA of one program in one mode: leftmost-first (``first``), and whether a match must reach the end."""

    def __init__(self, program: Program, start: int, first: bool, full: bool = False) -> None:
        self.program = program
        self.start_pc = start
        self.first = first
        self.full = full
        self.states: dict[tuple[tuple[int, ...], int, bool, bool], State] = {}
        self.transitions = 0
        self.threads = 0

    def _state(self, pcs: tuple[int, ...], prev: int, matched: bool, no_empty: bool) -> State:
        key = (pcs, prev, matched, no_empty)
        found = self.states.get(key)
        if found is None:
            if (len(self.states) >= MAX_DFA_STATES or self.transitions >= MAX_DFA_TRANSITIONS
                    or self.threads >= MAX_DFA_THREADS):
                self.states = {}
                self.transitions = self.threads = 0
            found = self.states[key] = State(self, pcs, prev, matched, no_empty)
            self.threads += len(pcs)
        return found

    def start(self, prev: int, no_empty: bool) -> State:
        """The state before the first character; ``no_empty`` refuses a match there (``re``'s must-advance)."""
        return self._state((self.start_pc,), prev, False, no_empty)

    def _targets(self, state: State, nxt: int, at_end: bool) -> tuple[list[Reach], Reach | None]:
        """What the state's threads reach in priority order: the CHAR instructions (up to a match, which cuts
        the rest when leftmost-first), and the first match, if any (``at_end``: the scan is at its end,
        which a full match must reach)."""
        ops = self.program.ops
        reached: list[Reach] = []
        refuse = state.no_empty or (self.full and not at_end)
        match: Reach | None = None
        for reach in self.program.walk(state.pcs, state.prev, nxt):
            if ops[reach[0]] != MATCH:
                reached.append(reach)
            elif not refuse and match is None:
                match = reach
                if self.first:
                    break
        return reached, match

    def step(self, state: State, key: str) -> State:
        """The state after ``key`` (a character, or the final-newline key), computed and cached."""
        program = self.program
        nxt = program.mask(key)
        reached, match = self._targets(state, nxt, False)
        c = key[0]
        sets = program.sets
        pcs = [reach[0] + 1 for reach in reached if sets[reach[0]].test(c)]
        if not self.first:
            pcs = sorted(set(pcs))
        found = self._state(tuple(pcs), nxt, match is not None, False)
        state[key] = found
        self.transitions += 1
        return found

    def plan(self, state: State, key: str | None, nxt: int) -> Plan:
        """How the threads' captures move on ``key`` (None: at the end): for each thread of the next state, the
        thread it comes from and the slots it saves; and the same for the first match, if any."""
        found = state.plans.get(key)
        if found is None:
            reached, match = self._targets(state, nxt, key is None)
            sets = self.program.sets
            c = "" if key is None else key[0]
            moves = tuple(reach[1:] for reach in reached if c and sets[reach[0]].test(c))
            found = state.plans[key] = (moves, None if match is None else match[1:])
            self.transitions += 1
        return found

    def ends(self, state: State, nxt: int) -> bool:
        """Whether a match ends at the end of the scan, ``nxt`` being the context beyond it."""
        found = state.ends.get(nxt)
        if found is None:
            found = state.ends[nxt] = self._targets(state, nxt, True)[1] is not None
        return found

    def forward(self, text: str, pos: int, endpos: int, no_empty: bool, earliest: bool = False) -> int:
        """Where the leftmost-first match starting the scan at ``pos`` ends, or -1."""
        program = self.program
        state = self.start(program.left(text, pos), no_empty)
        last = -1
        stop = endpos
        if stop > pos and program.uses & LAST_NEWLINE and text[stop - 1] == "\n":
            stop -= 1
        for i in range(pos, stop):  # no slice: a scan must not copy the text it may leave early
            state = state[text[i]]
            if state.stop:
                if state.matched:
                    last = i
                    if earliest:
                        return last
                if state.dead:
                    return last
        if stop < endpos:
            key = program.key(text, stop, endpos)
            state = state[key]
            if state.matched:
                last = stop
                if earliest:
                    return last
            if state.dead:
                return last
        if self.ends(state, EDGE & program.edges):
            last = endpos
        return last

    def backward(self, text: str, end: int, pos: int, endpos: int) -> int:
        """The leftmost position at or after ``pos`` where a match of the reversed program, run back from
        ``end``, starts; -1 if none."""
        program = self.program
        state = self.start(program.right(text, end, endpos), False)
        best = -1
        key = program.key
        for i in range(end - 1, pos - 1, -1):
            state = state[key(text, i, endpos)]
            if state.stop:
                if state.matched:
                    best = i + 1
                if state.dead:
                    return best
        if self.ends(state, program.left(text, pos)):
            best = pos
        return best
