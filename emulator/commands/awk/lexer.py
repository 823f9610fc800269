"""awk's lexer: program text into tokens, telling a regular expression ``/re/`` from a division by what came before."""

from __future__ import annotations

import re
from typing import Any

from emulator.commands.awk.errors import AwkError

_KEYWORDS = {"BEGIN", "END", "if", "else", "while", "for", "do", "in", "break", "continue", "next", "exit",
             "print", "printf", "delete", "function", "getline", "return", "nextfile"}
_BUILTINS = {"length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "tolower", "toupper", "int",
             "sqrt", "exp", "log", "sin", "cos", "atan2", "rand", "srand", "system", "close", "fflush"}
_PUNCT = ["+=", "-=", "*=", "/=", "%=", "^=", "**", "==", "<=", ">=", "!=", "++", "--", "&&", "||", "!~", ">>",
          "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!", ">", "<", "|", "?", ":", "~",
          "$", "=", "\n"]


class Tok:
    __slots__ = ("kind", "value", "line")

    def __init__(self, kind: str, value: Any, line: int) -> None:
        self.kind, self.value, self.line = kind, value, line

    def __repr__(self) -> str:
        return f"{self.kind}:{self.value!r}"


def tokenize(src: str) -> list[Tok]:
    tokens: list[Tok] = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c in " \t\r":
            i += 1
            continue
        if c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if c == "#":
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c == '"':
            j = i + 1
            out = []
            esc = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "/": "/", "a": "\a", "b": "\b",
                   "f": "\f", "v": "\v"}
            while j < n and src[j] != '"':
                if src[j] == "\\" and j + 1 < n:
                    out.append(esc.get(src[j + 1], "\\" + src[j + 1]))
                    j += 2
                elif src[j] == "\n":
                    raise AwkError(f"line {line}: runaway string constant \"{''.join(out)[:10]} ...")
                else:
                    out.append(src[j])
                    j += 1
            if j >= n:
                raise AwkError(f"line {line}: runaway string constant \"{''.join(out)[:10]} ...")
            tokens.append(Tok("str", "".join(out), line))
            i = j + 1
            continue
        if c == "/" and _regex_allowed(tokens):
            j = i + 1
            out = []
            while j < n and src[j] != "/":
                if src[j] == "\\" and j + 1 < n:
                    out.append(src[j:j + 2] if src[j + 1] != "/" else "/")
                    j += 2
                    continue
                if src[j] == "\n":
                    break
                out.append(src[j])
                j += 1
            if j >= n or src[j] != "/":
                raise AwkError(f"line {line}: runaway regular expression /{''.join(out)[:10]} ...")
            tokens.append(Tok("ere", "".join(out), line))
            i = j + 1
            continue
        if c.isdecimal() or (c == "." and i + 1 < n and src[i + 1].isdecimal()):
            match = re.match(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", src[i:])
            assert match
            tokens.append(Tok("num", float(match.group(0)), line))
            i += len(match.group(0))
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            word = src[i:j]
            kind = "kw" if word in _KEYWORDS else "builtin" if word in _BUILTINS else "name"
            if kind == "name" and j < n and src[j] == "(":
                kind = "funcname"
            tokens.append(Tok(kind, word, line))
            i = j
            continue
        for p in _PUNCT:
            if src.startswith(p, i):
                tokens.append(Tok("op", "^" if p == "**" else p, line))
                if p == "\n":
                    line += 1
                i += len(p)
                break
        else:
            raise AwkError(f"line {line}: syntax error at or near {c}")
    tokens.append(Tok("eof", None, line))
    return tokens


def _regex_allowed(tokens: list[Tok]) -> bool:
    if not tokens:
        return True
    last = tokens[-1]
    if last.kind in ("num", "str", "name", "builtin", "ere"):
        return False
    return not (last.kind == "op" and last.value in (")", "]", "$", "++", "--"))
