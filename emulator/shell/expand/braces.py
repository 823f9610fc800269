"""Brace expansion: ``{a,b}``, ``{1..8}``, ``{01..16}``, ``{a..e}``, nested, with a cap on the words one expression makes."""

from __future__ import annotations

import re

from emulator.shell.lexer import Lit, Word

#: Cap on the words one brace expression may produce.
BRACE_LIMIT = 10_000


_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$|^([a-zA-Z])\.\.([a-zA-Z])$")


def _brace_alternatives(body: str) -> list[str] | None:
    m = _RANGE.match(body)
    if m:
        if m.group(4):
            a, b = ord(m.group(4)), ord(m.group(5))
            step = 1 if b >= a else -1
            return [chr(c) for c in range(a, b + step, step)]
        lo, hi = m.group(1), m.group(2)
        step = abs(int(m.group(3) or 1)) or 1
        a, b = int(lo), int(hi)
        if abs(b - a) // step > BRACE_LIMIT:
            return None
        width = max(len(lo), len(hi)) if (lo.lstrip("-").startswith("0") or hi.lstrip("-").startswith("0")) else 0
        direction = step if b >= a else -step
        return [f"{n:0{width}d}" for n in range(a, b + (1 if b >= a else -1), direction)]
    depth, items, start = 0, [], 0
    for i, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    if not items:
        return None
    items.append(body[start:])
    return items


def brace_expand(text: str) -> list[str]:
    """Expand the first brace expression in ``text``, recursively."""
    depth, open_at = 0, -1
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                alts = _brace_alternatives(text[open_at + 1:i])
                if alts is None:
                    rest = brace_expand(text[i + 1:])
                    return [text[:i + 1] + r for r in rest][:BRACE_LIMIT]
                out: list[str] = []
                for alt in alts:
                    for tail in brace_expand(alt + text[i + 1:]):
                        out.append(text[:open_at] + tail)
                        if len(out) >= BRACE_LIMIT:
                            return out
                return out
    return [text]


def braces(word: Word) -> list[Word]:
    """Brace expansion applies to a word whose unquoted literal parts hold the braces."""
    if len(word.parts) != 1 or not isinstance(word.parts[0], Lit) or word.parts[0].quoted:
        # Mixed words: expand braces only inside leading unquoted literal text.
        if word.parts and isinstance(word.parts[0], Lit) and not word.parts[0].quoted and "{" in word.parts[0].text \
                and "}" in word.parts[0].text:
            head = word.parts[0].text
            return [Word([Lit(h, False), *word.parts[1:]], word.raw) for h in brace_expand(head)]
        return [word]
    text = word.parts[0].text
    if "{" not in text or "}" not in text:
        return [word]
    return [Word([Lit(t, False)], t) for t in brace_expand(text)]
