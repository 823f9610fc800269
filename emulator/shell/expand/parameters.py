"""Parameter expansion ``${...}``: defaults and assignments, ``${#x}``, pattern removal and replacement, substrings and case changes.

The word an operator takes (``${x:-WORD}``) is expanded by the caller's
``expand_text``, since word expansion, which calls this module, sits above it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from emulator.shell.expand.arithmetic import arithmetic
from emulator.shell.expand.env import Env, ExpansionError
from emulator.shell.lexer import Var

#: Longest value the pattern operators (``${x%pat}``, ``${x/a/b}``) work on.
PATTERN_LIMIT = 4096


def _remove(value: str, pattern: str, op: str) -> str:
    n = len(value)
    if op in ("#", "##"):
        ends = range(n + 1) if op == "#" else range(n, -1, -1)
        for end in ends:
            if fnmatch.fnmatchcase(value[:end], pattern):
                return value[end:]
    else:
        starts = range(n, -1, -1) if op == "%" else range(n + 1)
        for start in starts:
            if fnmatch.fnmatchcase(value[start:], pattern):
                return value[:start]
    return value


def _replace(value: str, arg: str, every: bool, expand_text: Callable[[str], str]) -> str:
    pattern, _, replacement = arg.partition("/")
    anchor = pattern[:1] if pattern[:1] in ("#", "%") else ""
    pattern, replacement = expand_text(pattern[len(anchor):]), expand_text(replacement)
    if anchor == "#":
        for end in range(len(value), -1, -1):
            if fnmatch.fnmatchcase(value[:end], pattern):
                return replacement + value[end:]
        return value
    if anchor == "%":
        for start in range(len(value) + 1):
            if fnmatch.fnmatchcase(value[start:], pattern):
                return value[:start] + replacement
        return value
    if not pattern:
        return value
    out: list[str] = []
    i = 0
    n = len(value)
    while i <= n:
        for end in range(n, i, -1):
            if fnmatch.fnmatchcase(value[i:end], pattern):
                out.append(replacement)
                i = end
                if not every:
                    return "".join(out) + value[i:]
                break
        else:
            if i < n:
                out.append(value[i])
            i += 1
    return "".join(out)


def _substring(value: str, arg: str, env: Env) -> str:
    offset_text, _, length_text = arg.partition(":")
    offset = arithmetic(offset_text, env) if offset_text.strip() else 0
    start = max(0, len(value) + offset) if offset < 0 else offset
    if not length_text:
        return value[start:]
    length = arithmetic(length_text, env)
    end = len(value) + length if length < 0 else start + length
    if end < start:
        raise ExpansionError(f"{length_text.strip()}: substring expression < 0")
    return value[start:end]


def parameter_value(part: Var, env: Env, expand_text: Callable[[str], str]) -> str:
    """The value of ``$NAME`` or ``${NAME<op>WORD}``; ``expand_text`` expands WORD."""
    value = env.lookup_var(part.name)
    op = part.op
    if op == "#len":
        return str(len(value or ""))
    empty = value is None or (op.startswith(":") and value == "")
    if op in (":-", "-"):
        return expand_text(part.arg) if empty else value or ""
    if op in (":=", "="):
        if empty:
            value = expand_text(part.arg)
            env.set_var(part.name, value)
        return value or ""
    if op in (":+", "+"):
        return "" if empty else expand_text(part.arg)
    if op in (":?", "?"):
        if empty:
            raise ExpansionError(f"{part.name}: {expand_text(part.arg) or 'parameter null or not set'}")
        return value or ""
    text = value or ""
    if len(text) > PATTERN_LIMIT:
        return text
    if op in ("#", "##", "%", "%%"):
        return _remove(text, expand_text(part.arg), op)
    if op in ("/", "//"):
        return _replace(text, part.arg, op == "//", expand_text)
    if op == ":":
        return _substring(text, part.arg, env)
    if op == "^^":
        return text.upper()
    if op == ",,":
        return text.lower()
    if op == "^":
        return text[:1].upper() + text[1:]
    if op == ",":
        return text[:1].lower() + text[1:]
    return text
