"""Bash's history expansion: ``!!``, ``!$``, ``!N``, ``!-N`` and ``!prefix``.

Expansion happens before the line is parsed; an expanded line is echoed, as
bash echoes it, and recorded in the history in its expanded form. A line, as
typed and as expanded, stops at :data:`~emulator.limits.LINE_LIMIT` characters.
"""

from __future__ import annotations

from emulator.limits import LINE_LIMIT, limit_reached
from emulator.shell.lexer import ShellSyntaxError

_STOP = " \t\n;&|()<>=\"'"


def _last_word(line: str) -> str:
    words = line.split()
    return words[-1] if words else ""


def check_length(line: str) -> None:
    """Refuse an input line longer than :data:`~emulator.limits.LINE_LIMIT` before anything reads it."""
    if len(line) > LINE_LIMIT:
        raise ShellSyntaxError(limit_reached(f"input line of {len(line)} characters is longer than {LINE_LIMIT}"))


def expand(line: str, history: list[str], base: int) -> tuple[str, bool]:
    """(expanded line, whether anything was expanded); raises ShellSyntaxError for an unknown event.

    ``base`` is the number of lines dropped from the front of ``history``
    (history numbers continue after them).
    """
    if "!" not in line:
        return line, False
    out: list[str] = []
    # How much longer the output so far is than the part of the line it came from.
    grown = 0
    changed = False
    i, n = 0, len(line)
    quote = ""
    while i < n:
        c = line[i]
        if c == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
        elif c == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
        elif c == "\\" and quote != "'" and i + 1 < n:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c != "!" or quote == "'" or i + 1 >= n or line[i + 1] in _STOP:
            out.append(c)
            i += 1
            continue
        nxt = line[i + 1]
        if nxt == "!":
            event, length = _event(history, -1, "!!"), 2
        elif nxt == "$":
            event, length = _last_word(_event(history, -1, "!$")), 2
        elif nxt.isdecimal() or (nxt == "-" and i + 2 < n and line[i + 2].isdecimal()):
            j = i + 2
            while j < n and line[j].isdecimal():
                j += 1
            text = line[i + 1:j]
            number = int(text)
            index = number if number < 0 else number - base - 1
            if number >= 0 and index < 0:
                raise ShellSyntaxError(f"!{text}: event not found")
            event, length = _event(history, index, f"!{text}"), j - i
        else:
            j = i + 1
            while j < n and line[j] not in _STOP:
                j += 1
            prefix = line[i + 1:j]
            matches = [h for h in reversed(history) if h.startswith(prefix)]
            if not matches:
                raise ShellSyntaxError(f"!{prefix}: event not found")
            event, length = matches[0], j - i
        out.append(event)
        changed = True
        i += length
        grown += len(event) - length
        if i + grown > LINE_LIMIT:
            raise ShellSyntaxError(limit_reached(f"{line[i - length:i]}: expanded line longer than {LINE_LIMIT} characters"))
    return "".join(out), changed


def _event(history: list[str], index: int, text: str) -> str:
    try:
        if index >= 0 and index >= len(history):
            raise IndexError
        return history[index]
    except IndexError:
        raise ShellSyntaxError(f"{text}: event not found") from None
