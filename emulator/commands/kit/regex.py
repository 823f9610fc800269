"""POSIX regular expressions for the text tools: BRE and ERE translated, then matched in linear time.

grep, sed, awk and pgrep share this translation, the engine
(:mod:`emulator.commands.kit.automaton`, which no pattern can make take more
than linear time) and its refusals, so one pattern means the same in every
tool and is refused in the same words. Only a pattern with a back reference
needs Python's backtracking ``re``; one that could take it exponential time is
refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from emulator.commands.kit import automaton

#: A compiled pattern: the linear-time engine's, or ``re``'s for a pattern with a back reference.
Regex = automaton.Pattern | re.Pattern[str]
#: A match of either.
Found = automaton.Match | re.Match[str]


def substitute_all(pattern: Regex, replace: Callable[[Found], str], text: str,
                   count: int = 0) -> str:
    """``re.sub`` with POSIX's rule that an empty match right after a match is skipped (``s/x*/-/g``)."""
    out: list[str] = []
    pos = 0
    previous_end = -1
    done = 0
    for m in pattern.finditer(text):
        if m.start() == m.end() == previous_end:
            continue
        out.append(text[pos:m.start()])
        out.append(replace(m))
        pos = previous_end = m.end()
        done += 1
        if count and done >= count:
            break
    out.append(text[pos:])
    return "".join(out)


_CLASSES = {"digit": "0-9", "alpha": "a-zA-Z", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f",
            "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "word": "\\w"}


class RegexError(ValueError):
    """A pattern the tool cannot compile; the message is GNU's wording."""


class RegexRefused(RegexError):
    """A valid pattern this terminal will not run; the message says so and why."""


def posix_regex(pattern: str, extended: bool) -> str:
    """A POSIX basic (BRE) or extended (ERE) regular expression as a Python one."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}|+?":
                out.append(nxt)
            elif nxt in "<>":
                out.append("\\b")
            elif nxt in "wWsSbB" or nxt.isdecimal():
                out.append("\\" + nxt)
            else:
                out.append(re.escape(nxt))
            continue
        if c == "[":
            j = i + 1
            body: list[str] = []
            if j < n and pattern[j] == "^":
                body.append("^")
                j += 1
            if j < n and pattern[j] == "]":
                body.append("\\]")
                j += 1
            while j < n and pattern[j] != "]":
                if pattern.startswith("[:", j):
                    end = pattern.find(":]", j + 2)
                    name = pattern[j + 2:end] if end > 0 else ""
                    if name not in _CLASSES:
                        raise RegexError("Invalid character class name" if end > 0 else "Unmatched [, [^, [:, [., or [=")
                    body.append(_CLASSES[name])
                    j = end + 2
                    continue
                ch = pattern[j]
                body.append("\\\\" if ch == "\\" else ("\\[" if ch == "[" else ch))
                j += 1
            if j >= n:
                raise RegexError("Unmatched [, [^, [:, [., or [=")
            out.append("[" + "".join(body) + "]")
            i = j + 1
            continue
        if not extended and c in "(){}|+?":
            out.append(re.escape(c))
        elif c == "*" and (not out or out[-1] in ("(", "^", "|")):
            out.append("\\*")
        elif extended and c == "{" and not re.match(r"\{\d*(,\d*)?\}", pattern[i:]):
            out.append("\\{")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def compile_python(body: str, flags: int = 0) -> Regex:
    """A translated pattern, compiled for linear-time matching.

    A back reference needs ``re``, which backtracks: such a pattern is refused
    (:class:`RegexRefused`) when it also repeats a group or holds more than one
    unbounded repetition, on which ``re`` can take exponential (or high
    polynomial) time: ``(a|a)*\\1b`` doubles its time with each ``a``. Too
    large a pattern gets GNU's "Regular expression too big"; an invalid one
    raises ``re.error``.
    """
    try:
        return automaton.compile(body, flags)
    except automaton.PatternTooLarge:
        raise RegexError("Regular expression too big") from None
    except automaton.NeedsBacktracking:
        if _may_backtrack(body):
            raise RegexRefused("a back reference with a repeated group or more than one repetition is refused "
                               "(a limit of this simulated terminal: matching it could take exponential time)") from None
        return re.compile(body, flags)


def compile_regex(pattern: str, extended: bool, ignore_case: bool = False) -> Regex:
    """A POSIX pattern compiled, or :class:`RegexError` in the words GNU's regex library uses."""
    try:
        return compile_python(posix_regex(pattern, extended), re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        text = str(exc)
        if "missing )" in text or "unbalanced parenthesis" in text:
            raise RegexError("Unmatched ( or \\(") from None
        if "unterminated character set" in text:
            raise RegexError("Unmatched [, [^, [:, [., or [=") from None
        if "invalid group reference" in text:
            raise RegexError("Invalid back reference") from None
        if "nothing to repeat" in text or "multiple repeat" in text:
            raise RegexError("Invalid preceding regular expression") from None
        raise RegexError("Invalid regular expression") from None


_UNBOUNDED = re.compile(r"[*+]|\{\d*,\d*\}")


def _may_backtrack(regex: str) -> bool:
    """Whether Python's backtracking matcher could take more than about quadratic time on ``regex``:
    a group repeated by ``*``, ``+`` or an interval (``(a|a)*``, ``(a+)+``), or two unbounded repetitions.

    The linear-time engine runs every other pattern; this guards only those that must fall back to ``re``.
    """
    unbounded = 0
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and regex[j] == "^":
                j += 1
            if j < n and regex[j] == "]":
                j += 1
            while j < n and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            i = j + 1
            continue
        if c == ")" and _UNBOUNDED.match(regex, i + 1):
            return True
        if c in "*+" or (c == "{" and _UNBOUNDED.match(regex, i) and regex[i:].split("}", 1)[0].endswith(",")):
            unbounded += 1
        i += 1
    return unbounded > 1
