"""Parameter expansion ``${...}``: defaults and assignments, ``${#x}``, pattern removal and replacement, substrings and case changes.

The word an operator takes (``${x:-WORD}``) is expanded by the caller's
``expand_text``, since word expansion, which calls this module, sits above it.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.shell.expand.arithmetic import arithmetic
from emulator.shell.expand.env import Env, ExpansionError
from emulator.shell.expand.patterns import remove, replace
from emulator.shell.lexer import Var


def _replace(value: str, arg: str, every: bool, expand_text: Callable[[str], str], what: str) -> str:
    pattern, _, replacement = arg.partition("/")
    anchor = pattern[:1] if pattern[:1] in ("#", "%") else ""
    pattern, replacement = expand_text(pattern[len(anchor):]), expand_text(replacement)
    return replace(value, pattern, replacement, anchor, every, what)


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
    what = f"${{{part.name}{op}{part.arg}}}"
    if op in ("#", "##", "%", "%%"):
        return remove(text, expand_text(part.arg), op, what)
    if op in ("/", "//"):
        return _replace(text, part.arg, op == "//", expand_text, what)
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
