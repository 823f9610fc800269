"""What the automaton refuses, and the limits that keep every pattern bounded.

Two refusals, so that a caller can tell them apart:

* ``NeedsBacktracking``: a valid Python pattern that no automaton can run
  (backreferences, conditionals, atomic groups, possessive repeats, lookaround
  wider than one character) or that this engine does not parse (the ``x``,
  ``a`` and ``L`` flags). The caller may fall back to ``re`` behind a budget.
* ``PatternTooLarge``: the pattern unrolls to more than ``MAX_INSTRUCTIONS``
  instructions (``(?:a{1000}){1000}``), or nests groups too deeply for
  Python's recursion limit. It is an ``re.error``, so a caller's
  ``except re.error`` reports it as an invalid pattern.

A pattern Python itself rejects raises Python's own ``re.error``, unchanged.
"""

from __future__ import annotations

import re

#: Instructions a compiled pattern may hold once its counted repeats are unrolled. A character costs at
#: worst one step over every instruction (about 0.3 µs each in CPython), when each makes a new DFA state.
MAX_INSTRUCTIONS = 5_000
#: States one lazy DFA caches before it forgets them all and starts again.
MAX_DFA_STATES = 4_000
#: Threads (instructions) all the cached states of one lazy DFA may hold together, likewise.
MAX_DFA_THREADS = 200_000
#: Transitions one lazy DFA caches before it forgets them all and starts again.
MAX_DFA_TRANSITIONS = 100_000
#: Entries any per-pattern memo (character tests, masks, closures) holds before it is cleared.
MAX_MEMO = 50_000


class NeedsBacktracking(ValueError):
    """A valid pattern this engine cannot run in linear time; ``reason`` names the construct."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the automaton cannot run {reason}; it needs a backtracking matcher")
        self.reason = reason


class PatternTooLarge(re.error):
    """A pattern whose automaton would exceed ``MAX_INSTRUCTIONS``, or nested too deeply to read."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"Regular expression too big: {detail}")
