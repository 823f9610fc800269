"""Word expansion in bash's order: braces, tilde, variables, command substitution and arithmetic, field splitting, globbing, quote removal.

What one word expands to, all its fields together, stops at
:data:`~emulator.limits.VALUE_LIMIT` characters: past it the expansion fails
with a message, and the line ends.
"""

from __future__ import annotations

from emulator.limits import VALUE_LIMIT, limit_reached
from emulator.shell.expand.arithmetic import arithmetic
from emulator.shell.expand.braces import braces
from emulator.shell.expand.env import Env, ExpansionError
from emulator.shell.expand.parameters import parameter_value
from emulator.shell.lexer import Arith, Lit, ShellSyntaxError, Sub, Tilde, Var, Word, tokenize
from emulator.vfs import glob_escape, has_magic


def _word_text(text: str, env: Env) -> str:
    """The argument of ``${x:-ARG}``: expanded as the words it holds, joined by spaces; text without
    quotes or expansions stands as it is (``${x// /-}`` replaces a space)."""
    if not any(c in text for c in "$`'\"\\~"):
        return text
    try:
        words = [t for t in tokenize(text) if isinstance(t, Word)]
        return " ".join("".join(expand_word(w, env, split=False, glob=False)) for w in words)
    except ShellSyntaxError:
        return text


def expand_word(word: Word, env: Env, split: bool = True, glob: bool = True) -> list[str]:
    """The fields a word expands to (an assignment value uses split=False, glob=False)."""
    results: list[str] = []
    room = VALUE_LIMIT
    for w in braces(word) if split else [word]:
        fields = _expand_one(w, env, split, glob, room, word.raw)
        room -= sum(map(len, fields))
        results += fields
    return results


def _expand_one(word: Word, env: Env, split: bool, glob: bool, room: int, raw: str) -> list[str]:
    # Each field is a list of (text, quoted) pieces.
    fields: list[list[tuple[str, bool]]] = [[]]
    any_quoted = False
    size = 0

    def grow(text: str) -> None:
        nonlocal size
        size += len(text)
        if size > room:
            raise ExpansionError(limit_reached(f"{raw}: expansion longer than {VALUE_LIMIT} characters"))

    def add_split(value: str) -> None:
        if not split:
            fields[-1].append((value, False))
            return
        pieces = value.split()
        if not pieces:
            if value and fields[-1]:
                fields.append([])
            return
        if value[:1].isspace() and fields[-1]:
            fields.append([])
        fields[-1].append((pieces[0], False))
        fields.extend([[(piece, False)] for piece in pieces[1:]])
        if value[-1:].isspace():
            fields.append([])

    for part in word.parts:
        if isinstance(part, Lit):
            grow(part.text)
            any_quoted = any_quoted or part.quoted
            fields[-1].append((part.text, part.quoted))
        elif isinstance(part, Tilde):
            if not part.user or part.user == "alice":
                home = env.home
            else:
                home = "/root" if part.user == "root" else f"/home/{part.user}"
            fields[-1].append((home, True))
        elif isinstance(part, (Var, Sub, Arith)):
            if isinstance(part, Var):
                value = parameter_value(part, env, lambda text: _word_text(text, env))
            elif isinstance(part, Sub):
                value = env.substitute(part.source).rstrip("\n")
            else:
                value = str(arithmetic(part.source, env))
            grow(value)
            if part.quoted:
                any_quoted = True
                fields[-1].append((value, True))
            else:
                add_split(value)
    out: list[str] = []
    for pieces in fields:
        if not pieces:
            continue
        if len(pieces) == 1 and not (glob and not pieces[0][1] and has_magic(pieces[0][0])):
            out.append(pieces[0][0])  # the common field: one piece, nothing to glob
            continue
        text = "".join(t for t, _ in pieces)
        if glob and any(not q and has_magic(t) for t, q in pieces):
            pattern = "".join(t if not q else glob_escape(t) for t, q in pieces)
            matches = env.glob(pattern)
            if matches:
                out += matches
                continue
        out.append(text)
    if not out and any_quoted and len(fields) == 1:
        out.append("")
    return out
