"""Arithmetic expansion ``$(( ))`` and ``(( ))``: 64-bit integers (decimal, hex, octal), variables, C's operators and ``?:``, with bash's error messages."""

from __future__ import annotations

import re
from collections.abc import Callable

from emulator.limits import NESTING_LIMIT, limit_reached
from emulator.shell.expand.env import Env, ExpansionError

_ARITH_TOKEN = re.compile(r"\s*(?:(\d[0-9A-Za-z_@#]*)|([A-Za-z_][A-Za-z_0-9]*)|"
                          r"(\*\*|\+\+|--|\+=|-=|\*=|/=|%=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^?:=]))")


_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%="}


def _constant(text: str) -> int:
    """An integer constant as bash's ``strlong`` reads it: decimal, ``0x`` hex, ``0`` octal or ``BASE#DIGITS``.

    Digits past 9 are ``a-z``, then ``A-Z`` (the same as ``a-z`` up to base 36), ``@`` and ``_``; the value
    wraps to 64 bits as bash's does. Raises ``ValueError`` with bash's reason.
    """
    base, value, found_base, digits = 10, 0, False, text
    if digits.startswith("0"):
        digits, found_base = digits[1:], True
        if digits[:1] in ("x", "X"):
            base, digits = 16, digits[1:]
        else:
            base = 8
    for pos, char in enumerate(digits):
        if char == "#":
            if found_base:
                raise ValueError("invalid number")
            if not 2 <= value <= 64:
                raise ValueError("invalid arithmetic base")
            base, value, found_base = value, 0, True
            if not (digits[pos + 1:pos + 2].isalnum() or digits[pos + 1:pos + 2] in ("@", "_")):
                raise ValueError("invalid integer constant")
            continue
        digit = _digit(char, base)
        if digit >= base:
            raise ValueError("value too great for base")
        value = _wrap64(value * base + digit)
    return value


def _digit(char: str, base: int) -> int:
    """One digit's value in ``base``, as bash reads it."""
    if char.isdigit():
        return int(char)
    if "a" <= char <= "z":
        return ord(char) - ord("a") + 10
    if "A" <= char <= "Z":
        return ord(char) - ord("A") + (10 if base <= 36 else 36)
    return 62 if char == "@" else 63


def arithmetic(source: str, env: Env) -> int:
    """Evaluate ``$(( ))``: integers (hex, octal, ``BASE#N``), variables, C operators, ``?:``, parentheses."""
    return _evaluate(source, env, 0)


def _evaluate(source: str, env: Env, depth: int) -> int:
    """``source`` evaluated ``depth`` levels inside other expressions (a variable's value is one level in)."""
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
    p = _ArithParser(tokens, src, env, depth)
    result = p.ternary()
    if p.i != len(tokens):
        rest = " ".join(t.removeprefix("$") for t in tokens[p.i:])
        raise ExpansionError(f"{src}: syntax error in expression (error token is \"{rest}\")")
    return _wrap64(result)


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
        "/": _div, "%": lambda x, y: x - y * _div(x, y), "**": lambda x, y: pow(x, y, 2 ** 64),
        "<": lambda x, y: int(x < y), ">": lambda x, y: int(x > y), "<=": lambda x, y: int(x <= y),
        ">=": lambda x, y: int(x >= y), "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
        "&&": lambda x, y: int(bool(x and y)), "||": lambda x, y: int(bool(x or y)),
        "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
        "<<": lambda x, y: x << (y % 64), ">>": lambda x, y: x >> (y % 64),
    }

    def __init__(self, tokens: list[str], source: str, env: Env, depth: int) -> None:
        self.tokens, self.i, self.source, self.env = tokens, 0, source, env
        #: Operands and sub-expressions being read inside one another (see :data:`~emulator.limits.NESTING_LIMIT`).
        self.depth = depth

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > NESTING_LIMIT:
            raise ExpansionError(limit_reached(f"{self.source}: expression recursion level exceeded: "
                                               f"more than {NESTING_LIMIT} levels"))

    def _value(self, name: str) -> int:
        """A variable's value: its text evaluated as an expression one level deeper, as bash does (empty is 0).

        A variable that names itself stops at :data:`~emulator.limits.NESTING_LIMIT` levels, as bash stops at 1024.
        """
        text = self.env.lookup_var(name) or ""
        if not text.strip():
            return 0
        return _evaluate(text, self.env, self.depth + 1)

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
            self._deeper()
            yes = self.ternary()
            if self.i >= len(self.tokens) or self.tokens[self.i] != ":":
                raise ExpansionError(f"{self.source}: `:' expected for conditional expression "
                                     f"(error token is \"{' '.join(self.tokens[self.i:])}\")")
            self.i += 1
            no = self.ternary()
            self.depth -= 1
            return yes if cond else no
        return cond

    def unary(self) -> int:
        """The operand of a unary operator: one level deeper."""
        self._deeper()
        try:
            return self.atom()
        finally:
            self.depth -= 1

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
            return self.unary()  # -(-x) or +(+x)
        if tok == "-":
            return -self.unary()
        if tok == "+":
            return self.unary()
        if tok == "!":
            return int(not self.unary())
        if tok == "~":
            return ~self.unary()
        if tok[0].isdigit():
            try:
                return _constant(tok)
            except ValueError as reason:
                raise ExpansionError(f"{tok}: {reason} (error token is \"{tok}\")") from None
        raise ExpansionError(f"{self.source}: syntax error: operand expected (error token is \"{tok}\")")

    def expr(self, min_prec: int) -> int:
        self._deeper()
        try:
            return self._expr(min_prec)
        finally:
            self.depth -= 1

    def _expr(self, min_prec: int) -> int:
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
        if op == "**" and b < 0:
            rest = self.source.split(op)[-1].strip().lstrip("-")
            raise ExpansionError(f"{self.source}: exponent less than 0 (error token is \"{rest}\")")
        return _wrap64(self._OPS[op](a, b))
