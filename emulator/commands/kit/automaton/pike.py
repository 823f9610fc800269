"""The Pike VM: the NFA run over the text with every thread at once, each thread carrying its capture slots.

Threads are kept in priority order and one thread per instruction survives a
step (the first to arrive), so the work is the text's length times the
program's size, whatever the pattern. The threads are those of the anchored
DFA's states, and how each step moves their slots is cached with the state:
a step then costs one slot tuple per live thread. It is run only from a known
match start (found by the DFAs), and only when the pattern has groups.
"""

from __future__ import annotations

from emulator.commands.kit.automaton.dfa import LazyDFA, Move
from emulator.commands.kit.automaton.program import EDGE, Slots


def _move(slots: Slots, move: Move, i: int) -> Slots:
    _, saves, closed = move
    if not saves:
        return slots
    out = list(slots)
    for slot in saves:
        out[slot] = i
    if closed:
        out[-1] = closed
    return tuple(out)


def captures(dfa: LazyDFA, text: str, start: int, end: int, endpos: int, no_empty: bool) -> Slots:
    """The slots of the leftmost-first match from ``start``, known to end at ``end`` (see ``Slots``), found
    by walking the anchored DFA's states with one slot tuple per thread."""
    program = dfa.program
    state = dfa.start(program.left(text, start), no_empty)
    threads: list[Slots] = [(-1,) * program.slots + (0,)]
    plan = dfa.plan
    for i in range(start, end):
        key = program.key(text, i, endpos)
        moves = state.plans.get(key) or plan(state, key, program.mask(key))
        threads = [_move(threads[move[0]], move, i) for move in moves[0]]
        state = state[key]
    if end < endpos:
        key = program.key(text, end, endpos)
        match = (state.plans.get(key) or plan(state, key, program.mask(key)))[1]
    else:
        match = plan(state, None, EDGE & program.edges)[1]
    if match is None:  # the DFAs disagree with this walk: a bug, never seen
        raise AssertionError(f"automaton: no match at {end} from {start}")
    return _move(threads[match[0]], match, end)
