"""A linear-time regular-expression engine with ``re``'s interface and ``re``'s results.

Python's ``re`` backtracks: ``(a|a)+$`` on 22 a's and a b takes a second, and
doubles with each a; in the browser (Pyodide) that freezes the page. This
engine reads the same patterns (``syntax``), compiles them to a Thompson NFA
(``program``) and matches with lazy DFAs (``dfa``) and, for captures, a Pike
VM over the DFA's states (``pike``): time linear in the text for a fixed
pattern, memory bounded (``errors`` holds the limits). ``pattern`` holds
``compile``, ``Pattern`` and ``Match``; ``template`` the replacement strings
of ``sub`` and ``expand``; ``analysis`` the literal prefilter.

Supported: literals and every escape ``re`` knows, ``.``, bracket sets,
``\\d \\w \\s`` and their negations, groups (named too), ``(?:...)``,
alternation, ``* + ? {m,n}`` greedy and lazy, ``^ $ \\A \\Z \\b \\B``,
lookaround of one character or set (grep -w's ``(?<!\\w)...(?!\\w)``), inline
and scoped ``i m s`` flags, and the flags ``IGNORECASE``, ``MULTILINE``,
``DOTALL``. Results equal ``re``'s (spans, groups, ``lastindex``, empty
matches in ``finditer``/``sub``/``split``), except that ``pos > endpos``
never matches. ``Pattern.test`` is an extra: ``search(...) is not None``,
stopping at the first match.

Refused: ``NeedsBacktracking`` (backreferences, conditionals, atomic groups,
possessive repeats, wider lookaround, the ``x``/``a``/``L`` flags), so the
caller may fall back to ``re``; ``PatternTooLarge`` (an ``re.error``) past
``MAX_INSTRUCTIONS`` unrolled instructions. Invalid patterns raise ``re``'s
own ``re.error``.
"""

from __future__ import annotations

from emulator.commands.kit.automaton.errors import MAX_INSTRUCTIONS, NeedsBacktracking, PatternTooLarge
from emulator.commands.kit.automaton.pattern import Match, Pattern, compile

__all__ = ["MAX_INSTRUCTIONS", "Match", "NeedsBacktracking", "Pattern", "PatternTooLarge", "compile"]
