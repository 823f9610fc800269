"""Word expansion in bash's order: braces, tilde, variables, command
substitution and arithmetic, field splitting, globbing, quote removal.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from typing import Protocol

from emulator.shell.lexer import Arith, Lit, ShellSyntaxError, Sub, Tilde, Var, Word, tokenize
from emulator.vfs import glob_escape, has_magic, normpath

#: Cap on the words one brace expression may produce.
BRACE_LIMIT = 10_000


class ExpansionError(ShellSyntaxError):
    """A failed expansion (``${x:?}``, bad arithmetic); the message follows bash."""


class Env(Protocol):
    """What expansion needs from the shell."""

    @property
    def home(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    def lookup_var(self, name: str) -> str | None: ...

    def set_var(self, name: str, value: str) -> None: ...

    def substitute(self, source: str) -> str: ...

    def glob(self, pattern: str) -> list[str]: ...


# -- braces -------------------------------------------------------------------------
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


def _braces(word: Word) -> list[Word]:
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


# -- arithmetic ---------------------------------------------------------------------
_ARITH_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_][A-Za-z_0-9]*)|"
                          r"(\*\*|\+\+|--|\+=|-=|\*=|/=|%=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^?:=]))")
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%="}
_INTEGER = re.compile(r"^\s*-?(0[xX][0-9a-fA-F]+|\d+)\s*$")


def _integer(text: str) -> int:
    """A bash integer constant: decimal, 0x hex, or 0-prefixed octal."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("-")
    if body[:2].lower() == "0x":
        return sign * int(body, 16)
    if len(body) > 1 and body.startswith("0"):
        if any(c in "89" for c in body):
            raise ValueError(body)
        return sign * int(body, 8)
    return sign * int(body)


def arithmetic(source: str, env: Env) -> int:
    """Evaluate ``$(( ))``: integers (hex, octal), variables, C operators, ``?:``, parentheses."""
    tokens: list[str] = []
    pos = 0
    src = source.strip()
    while pos < len(src):
        m = _ARITH_TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise ExpansionError(f"{src}: syntax error: invalid arithmetic operator (error token is \"{src[pos:]}\")")
        if m.group(2):
            tokens.append("$" + m.group(2))
        else:
            tokens.append(m.group(1) or m.group(3))
        pos = m.end()
        while pos < len(src) and src[pos].isspace():
            pos += 1
    if not tokens:
        return 0
    p = _ArithParser(tokens, src, env)
    result = p.ternary()
    if p.i != len(tokens):
        rest = " ".join(t.removeprefix("$") for t in tokens[p.i:])
        raise ExpansionError(f"{src}: syntax error in expression (error token is \"{rest}\")")
    return result


def _wrap64(value: int) -> int:
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


def _div(x: int, y: int) -> int:
    """C division: truncates toward zero."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


class _ArithParser:
    _PREC = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
             "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10, "**": 11}
    _OPS: dict[str, Callable[[int, int], int]] = {
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "/": _div, "%": lambda x, y: x - y * _div(x, y), "**": lambda x, y: x ** y,
        "<": lambda x, y: int(x < y), ">": lambda x, y: int(x > y), "<=": lambda x, y: int(x <= y),
        ">=": lambda x, y: int(x >= y), "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
        "&&": lambda x, y: int(bool(x and y)), "||": lambda x, y: int(bool(x or y)),
        "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
        "<<": lambda x, y: _wrap64(x << min(y, 64)), ">>": lambda x, y: x >> min(y, 64),
    }

    def __init__(self, tokens: list[str], source: str, env: Env) -> None:
        self.tokens, self.i, self.source, self.env = tokens, 0, source, env

    def _value(self, name: str) -> int:
        text = self.env.lookup_var(name) or "0"
        try:
            return _integer(text) if _INTEGER.match(text) else 0
        except ValueError:
            return 0

    def _store(self, name: str, value: int) -> int:
        self.env.set_var(name, str(value))
        return value

    def _variable(self, name: str) -> int:
        """A variable operand, with ``=``, ``+=``..., or a postfix ``++``/``--``."""
        nxt = self.tokens[self.i] if self.i < len(self.tokens) else ""
        if nxt in _ASSIGN:
            self.i += 1
            value = self.ternary()
            if nxt != "=":
                value = self._apply(nxt[0], self._value(name), value)
            return self._store(name, value)
        if nxt in ("++", "--"):
            self.i += 1
            old = self._value(name)
            self._store(name, old + (1 if nxt == "++" else -1))
            return old
        return self._value(name)

    def ternary(self) -> int:
        cond = self.expr(0)
        if self.i < len(self.tokens) and self.tokens[self.i] == "?":
            self.i += 1
            yes = self.ternary()
            if self.i >= len(self.tokens) or self.tokens[self.i] != ":":
                raise ExpansionError(f"{self.source}: `:' expected for conditional expression "
                                     f"(error token is \"{' '.join(self.tokens[self.i:])}\")")
            self.i += 1
            no = self.ternary()
            return yes if cond else no
        return cond

    def atom(self) -> int:
        if self.i >= len(self.tokens):
            last = self.tokens[-1] if self.tokens else ""
            raise ExpansionError(f"{self.source}: syntax error: operand expected (error token is \"{last}\")")
        tok = self.tokens[self.i]
        self.i += 1
        if tok == "(":
            value = self.ternary()
            if self.i >= len(self.tokens) or self.tokens[self.i] != ")":
                raise ExpansionError(f"{self.source}: syntax error: missing `)'")
            self.i += 1
            return value
        if tok.startswith("$"):
            return self._variable(tok[1:])
        if tok in ("++", "--"):
            nxt = self.tokens[self.i] if self.i < len(self.tokens) else ""
            if nxt.startswith("$"):
                self.i += 1
                return self._store(nxt[1:], self._value(nxt[1:]) + (1 if tok == "++" else -1))
            return self.atom()  # -(-x) or +(+x)
        if tok == "-":
            return -self.atom()
        if tok == "+":
            return self.atom()
        if tok == "!":
            return int(not self.atom())
        if tok == "~":
            return ~self.atom()
        if _INTEGER.match(tok):
            try:
                return _integer(tok)
            except ValueError:
                raise ExpansionError(f"{tok}: value too great for base (error token is \"{tok}\")") from None
        raise ExpansionError(f"{self.source}: syntax error: operand expected (error token is \"{tok}\")")

    def expr(self, min_prec: int) -> int:
        left = self.atom()
        if self.i < len(self.tokens) and self.tokens[self.i] in ("++", "--"):
            # After an operand, ``5--3`` is 5 - (-3), as bash reads it.
            sign = self.tokens[self.i][0]
            self.tokens[self.i:self.i + 1] = [sign, sign]
        while self.i < len(self.tokens) and self._PREC.get(self.tokens[self.i], 0) > min_prec:
            op = self.tokens[self.i]
            self.i += 1
            prec = self._PREC[op]
            right = self.expr(prec - 1 if op == "**" else prec)
            left = self._apply(op, left, right)
        return left

    def _apply(self, op: str, a: int, b: int) -> int:
        if op in ("/", "%") and b == 0:
            raise ExpansionError(f"{self.source}: division by 0 (error token is \"{self.source.split(op)[-1].strip()}\")")
        if op == "**" and (b < 0 or b > 64):
            raise ExpansionError(f"{self.source}: exponent less than 0" if b < 0 else f"{self.source}: exponent out of range")
        if op in ("<<", ">>") and b < 0:
            return 0
        return _wrap64(self._OPS[op](a, b))


# -- words --------------------------------------------------------------------------
#: Longest value the pattern operators (``${x%pat}``, ``${x/a/b}``) work on.
PATTERN_LIMIT = 4096


def _word_text(text: str, env: Env) -> str:
    """The argument of ``${x:-ARG}``: expanded as the words it holds, joined by spaces."""
    try:
        words = [t for t in tokenize(text) if isinstance(t, Word)]
        return " ".join("".join(expand_word(w, env, split=False, glob=False)) for w in words)
    except ShellSyntaxError:
        return text


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


def _replace(value: str, arg: str, every: bool, env: Env) -> str:
    pattern, _, replacement = arg.partition("/")
    anchor = pattern[:1] if pattern[:1] in ("#", "%") else ""
    pattern, replacement = _word_text(pattern[len(anchor):], env), _word_text(replacement, env)
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


def _var_value(part: Var, env: Env) -> str:
    value = env.lookup_var(part.name)
    op = part.op
    if op == "#len":
        return str(len(value or ""))
    empty = value is None or (op.startswith(":") and value == "")
    if op in (":-", "-"):
        return _word_text(part.arg, env) if empty else value or ""
    if op in (":=", "="):
        if empty:
            value = _word_text(part.arg, env)
            env.set_var(part.name, value)
        return value or ""
    if op in (":+", "+"):
        return "" if empty else _word_text(part.arg, env)
    if op in (":?", "?"):
        if empty:
            raise ExpansionError(f"{part.name}: {_word_text(part.arg, env) or 'parameter null or not set'}")
        return value or ""
    text = value or ""
    if len(text) > PATTERN_LIMIT:
        return text
    if op in ("#", "##", "%", "%%"):
        return _remove(text, _word_text(part.arg, env), op)
    if op in ("/", "//"):
        return _replace(text, part.arg, op == "//", env)
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


def expand_word(word: Word, env: Env, split: bool = True, glob: bool = True) -> list[str]:
    """The fields a word expands to (an assignment value uses split=False, glob=False)."""
    results: list[str] = []
    for w in _braces(word) if split else [word]:
        results += _expand_one(w, env, split, glob)
    return results


def _expand_one(word: Word, env: Env, split: bool, glob: bool) -> list[str]:
    # Each field is a list of (text, quoted) pieces.
    fields: list[list[tuple[str, bool]]] = [[]]
    any_quoted = False

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
        for piece in pieces[1:]:
            fields.append([(piece, False)])
        if value[-1:].isspace():
            fields.append([])

    for part in word.parts:
        if isinstance(part, Lit):
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
                value = _var_value(part, env)
            elif isinstance(part, Sub):
                value = env.substitute(part.source).rstrip("\n")
            else:
                value = str(arithmetic(part.source, env))
            if part.quoted:
                any_quoted = True
                fields[-1].append((value, True))
            else:
                add_split(value)
    out: list[str] = []
    for pieces in fields:
        if not pieces:
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


def glob_relative(pattern: str, cwd: str, matcher: Callable[[str], list[str]]) -> list[str]:
    """Glob a pattern that may be relative: match absolutely, then print as typed."""
    absolute = normpath(cwd, pattern) if not pattern.startswith("/") else pattern
    if pattern.startswith("/"):
        return matcher(absolute)
    prefix = cwd.rstrip("/") + "/"
    found = matcher(absolute)
    lead = ""
    stripped = pattern
    while stripped.startswith("./"):
        lead += "./"
        stripped = stripped[2:]
    if stripped.startswith("../"):
        return found  # rare; print absolute paths
    return [lead + f[len(prefix):] if f.startswith(prefix) else f for f in found]
