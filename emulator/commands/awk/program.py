"""awk: a documented subset of POSIX awk, enough for operators' one-liners.

Supported: ``-F FS``, ``-v var=value``, ``-f progfile``, ``var=value``
operands; ``BEGIN``/``END``; patterns ``/re/``, expressions and ranges
``p1, p2``; ``print`` (with ``>``/``>>`` to a file), ``printf``; ``if``/``else``,
``while``, ``do``, ``for (;;)``, ``for (k in a)``, ``next``, ``exit``,
``break``, ``continue``, ``delete``; fields ``$N``, ``$NF``, ``$(expr)``
(assignable); ``NR NF FNR FS OFS ORS RS FILENAME SUBSEP RSTART RLENGTH``;
associative arrays, ``in``; arithmetic ``+ - * / % ^``, ``++ --``, compound
assignments, comparisons, ``~ !~``, ``&& || !``, ``?:``, concatenation; the
functions ``length substr index split sub gsub match sprintf tolower toupper
int sqrt exp log sin cos atan2 rand srand``.

Not supported (a clear error): user-defined functions, ``getline``,
``system()``, output pipes. Work is capped so that no program runs forever.
Error messages follow mawk, Ubuntu's default awk.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.regex import RegexError, posix_regex, substitute_all
from emulator.vfs import FsError

#: Statements and loop iterations one program may execute.
STEP_LIMIT = 2_000_000


class AwkError(Exception):
    """A syntax or run-time error; ``message`` is the text after ``awk: ``."""


class _Next(Exception):
    pass


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class StrNum(str):
    """Input text (fields, -v values): compares as a number when it looks like one."""


class _Uninit:
    def __repr__(self) -> str:
        return "<uninit>"


UNINIT = _Uninit()
#: What x86 computes for 0/0 and sqrt(-1): a NaN with the sign bit set, which awk prints as ``-nan``.
NEG_NAN = math.copysign(math.nan, -1.0)
_NUMERIC = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
_PREFIX = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def to_num(value: Any) -> float:
    if isinstance(value, float):
        return value
    if value is UNINIT:
        return 0.0
    match = _PREFIX.match(value)
    if not match:
        return 0.0
    try:
        return float(match.group(0))
    except ValueError:
        return 0.0


def num_str(value: float, fmt: str = "%.6g") -> str:
    if math.isnan(value):
        return "nan" if math.copysign(1, value) > 0 else "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e16:
        return str(int(value))
    return fmt % value


def to_str(value: Any) -> str:
    if isinstance(value, float):
        return num_str(value)
    if value is UNINIT:
        return ""
    return value


def _numeric_like(value: Any) -> bool:
    return isinstance(value, float) or value is UNINIT or (isinstance(value, StrNum) and bool(_NUMERIC.match(value)))


def to_bool(value: Any) -> bool:
    if isinstance(value, float):
        return value != 0
    if value is UNINIT:
        return False
    if isinstance(value, StrNum) and _NUMERIC.match(value):
        return to_num(value) != 0
    return value != ""


# -- lexer -------------------------------------------------------------------------------
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


# -- parser: nodes are tuples (kind, ...) ----------------------------------------------------
class Parser:
    def __init__(self, tokens: list[Tok]) -> None:
        self.t = tokens
        self.i = 0
        self.no_in = False
        self.no_gt = False

    def peek(self, offset: int = 0) -> Tok:
        return self.t[min(self.i + offset, len(self.t) - 1)]

    def at(self, value: str, kind: str = "op") -> bool:
        tok = self.peek()
        return tok.kind == kind and tok.value == value

    def take(self, value: str | None = None, kind: str = "op") -> Tok:
        tok = self.peek()
        if value is not None and not (tok.kind == kind and tok.value == value):
            raise self.error()
        self.i += 1
        return tok

    def error(self) -> AwkError:
        tok = self.peek()
        near = {"eof": "end of file"}.get(tok.kind, tok.value if tok.value != "\n" else "end of line")
        if tok.kind == "num":
            near = num_str(tok.value)
        return AwkError(f"line {tok.line}: syntax error at or near {near}")

    def newlines(self) -> None:
        while self.at("\n"):
            self.i += 1

    def terminators(self) -> None:
        while self.at("\n") or self.at(";"):
            self.i += 1

    def program(self) -> tuple[list, list, list]:
        begin, main, end = [], [], []
        self.terminators()
        while self.peek().kind != "eof":
            if self.at("BEGIN", "kw"):
                self.i += 1
                self.newlines()
                begin.append(self.block())
            elif self.at("END", "kw"):
                self.i += 1
                self.newlines()
                end.append(self.block())
            elif self.at("function", "kw"):
                raise AwkError(f"line {self.peek().line}: user-defined functions are not supported by this awk")
            else:
                pattern: Any = None
                pattern2: Any = None
                if not self.at("{"):
                    pattern = self.expr()
                    if self.at(","):
                        self.i += 1
                        self.newlines()
                        pattern2 = self.expr()
                action = self.block() if self.at("{") else None
                main.append([pattern, pattern2, action, False])
            self.terminators()
        return begin, main, end

    def block(self) -> tuple:
        self.take("{")
        stmts = []
        self.terminators()
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise AwkError(f"line {self.peek().line + 1}: missing }} near end of file")
            stmts.append(self.statement())
            self.terminators()
        self.take("}")
        return ("block", stmts)

    def simple_end(self) -> None:
        if self.at(";") or self.at("\n"):
            self.i += 1
        elif not (self.at("}") or self.peek().kind == "eof"):
            raise self.error()

    def statement(self) -> tuple:
        tok = self.peek()
        if tok.kind == "op" and tok.value == "{":
            return self.block()
        if tok.kind == "op" and tok.value == ";":
            self.i += 1
            return ("block", [])
        if tok.kind == "kw":
            word = tok.value
            if word == "if":
                self.i += 1
                self.take("(")
                cond = self.expr()
                self.take(")")
                self.newlines()
                then = self.statement()
                save = self.i
                self.terminators()
                if self.at("else", "kw"):
                    self.i += 1
                    self.newlines()
                    return ("if", cond, then, self.statement())
                self.i = save
                return ("if", cond, then, None)
            if word == "while":
                self.i += 1
                self.take("(")
                cond = self.expr()
                self.take(")")
                if self.at(";"):
                    self.i += 1
                    return ("while", cond, ("block", []))
                self.newlines()
                return ("while", cond, self.statement())
            if word == "do":
                self.i += 1
                self.newlines()
                body = self.statement()
                self.terminators()
                self.take("while", "kw")
                self.take("(")
                cond = self.expr()
                self.take(")")
                self.simple_end()
                return ("do", body, cond)
            if word == "for":
                self.i += 1
                self.take("(")
                if self.peek().kind == "name" and self.peek(1).kind == "kw" and self.peek(1).value == "in" \
                        and self.peek(2).kind == "name" and self.peek(3).value == ")":
                    var = self.take(kind="name").value
                    self.i += 1
                    arr = self.take(kind="name").value
                    self.take(")")
                    self.newlines()
                    return ("forin", var, arr, self.statement())
                init = None if self.at(";") else self.simple_statement()
                self.take(";")
                self.newlines()
                test = None if self.at(";") else self.expr()
                self.take(";")
                self.newlines()
                step = None if self.at(")") else self.simple_statement()
                self.take(")")
                if self.at(";"):
                    self.i += 1
                    return ("for", init, test, step, ("block", []))
                self.newlines()
                return ("for", init, test, step, self.statement())
            if word in ("next", "break", "continue", "nextfile"):
                self.i += 1
                self.simple_end()
                return (word if word != "nextfile" else "next",)
            if word == "exit":
                self.i += 1
                value = None if self.at(";") or self.at("\n") or self.at("}") else self.expr()
                self.simple_end()
                return ("exit", value)
            if word in ("getline", "return"):
                raise AwkError(f"line {tok.line}: {word} is not supported by this awk")
        stmt = self.simple_statement()
        self.simple_end()
        return stmt

    def simple_statement(self) -> tuple:
        tok = self.peek()
        if tok.kind == "kw" and tok.value in ("print", "printf"):
            self.i += 1
            args: list = []
            self.no_gt = True
            try:
                if not (self.at(";") or self.at("\n") or self.at("}") or self.at(">") or self.at(">>")
                        or self.at("|") or self.peek().kind == "eof"):
                    args = self.expr_list()
            finally:
                self.no_gt = False
            if len(args) == 1 and args[0][0] == "group":
                args = args[0][1]
            dest = None
            if self.at(">") or self.at(">>"):
                mode = self.take().value
                dest = (mode, self.concat_level())
            elif self.at("|"):
                raise AwkError(f"line {tok.line}: output pipes are not supported by this awk")
            if tok.value == "printf" and not args:
                raise self.error()
            return (tok.value, args, dest)
        if tok.kind == "kw" and tok.value == "delete":
            self.i += 1
            name = self.take(kind="name").value
            if self.at("["):
                self.i += 1
                keys = self.expr_list()
                self.take("]")
                return ("delete", name, keys)
            return ("delete", name, None)
        return ("expr", self.expr())

    def expr_list(self) -> list:
        items = [self.expr()]
        while self.at(","):
            self.i += 1
            self.newlines()
            items.append(self.expr())
        return items

    # precedence climbing ------------------------------------------------------------------
    def expr(self) -> tuple:
        return self.ternary()

    def ternary(self) -> tuple:
        cond = self.or_()
        if self.at("?"):
            self.i += 1
            self.newlines()
            a = self.ternary()
            self.newlines()
            self.take(":")
            self.newlines()
            b = self.ternary()
            return ("cond", cond, a, b)
        assigning = self.at("=") or (self.peek().kind == "op" and self.peek().value in ("+=", "-=", "*=", "/=", "%=", "^="))
        if assigning and cond[0] in ("var", "field", "index"):
            op = self.take().value
            self.newlines()
            return ("assign", op, cond, self.ternary())
        return cond

    def or_(self) -> tuple:
        left = self.and_()
        while self.at("||"):
            self.i += 1
            self.newlines()
            left = ("or", left, self.and_())
        return left

    def and_(self) -> tuple:
        left = self.in_()
        while self.at("&&"):
            self.i += 1
            self.newlines()
            left = ("and", left, self.in_())
        return left

    def in_(self) -> tuple:
        left = self.match()
        while self.at("in", "kw") and not self.no_in:
            self.i += 1
            arr = self.take(kind="name").value
            left = ("in", [left] if left[0] != "group" else left[1], arr)
        return left

    def match(self) -> tuple:
        left = self.compare()
        while self.at("~") or self.at("!~"):
            op = self.take().value
            left = ("match", op == "!~", left, self.compare())
        return left

    def compare(self) -> tuple:
        left = self.concat_level()
        tok = self.peek()
        if tok.kind == "op" and tok.value in ("<", "<=", "!=", "==", ">=", ">") and not (self.no_gt and tok.value == ">"):
            op = self.take().value
            return ("cmp", op, left, self.concat_level())
        return left

    def concat_level(self) -> tuple:
        left = self.additive()
        while True:
            tok = self.peek()
            starts = tok.kind in ("num", "str", "ere", "name", "builtin", "funcname") or (
                tok.kind == "op" and tok.value in ("$", "!", "(", "++", "--", "-", "+")) and not (
                tok.kind == "op" and tok.value in ("-", "+"))
            if tok.kind == "kw" and tok.value == "in":
                starts = False
            if not starts:
                return left
            left = ("concat", left, self.additive())

    def additive(self) -> tuple:
        left = self.mult()
        while self.at("+") or self.at("-"):
            op = self.take().value
            left = ("bin", op, left, self.mult())
        return left

    def mult(self) -> tuple:
        left = self.unary()
        while self.at("*") or self.at("/") or self.at("%"):
            op = self.take().value
            left = ("bin", op, left, self.unary())
        return left

    def unary(self) -> tuple:
        if self.at("!"):
            self.i += 1
            return ("not", self.unary())
        if self.at("-"):
            self.i += 1
            return ("neg", self.unary())
        if self.at("+"):
            self.i += 1
            return ("pos", self.unary())
        return self.power()

    def power(self) -> tuple:
        base = self.postfix()
        if self.at("^"):
            self.i += 1
            return ("bin", "^", base, self.unary_power())
        return base

    def unary_power(self) -> tuple:
        if self.at("-"):
            self.i += 1
            return ("neg", self.unary_power())
        return self.power()

    def postfix(self) -> tuple:
        if self.at("++") or self.at("--"):
            op = self.take().value
            target = self.postfix()
            if target[0] not in ("var", "field", "index"):
                raise self.error()
            return ("preinc", 1.0 if op == "++" else -1.0, target)
        node = self.primary()
        if (self.at("++") or self.at("--")) and node[0] in ("var", "field", "index"):
            op = self.take().value
            return ("postinc", 1.0 if op == "++" else -1.0, node)
        return node

    def primary(self) -> tuple:
        tok = self.peek()
        if tok.kind == "num":
            self.i += 1
            return ("num", tok.value)
        if tok.kind == "str":
            self.i += 1
            return ("str", tok.value)
        if tok.kind == "ere":
            self.i += 1
            return ("ere", tok.value)
        if tok.kind == "op" and tok.value == "$":
            self.i += 1
            if self.at("++") or self.at("--") or self.at("-"):
                return ("field", self.unary())
            return ("field", self.primary_for_field())
        if tok.kind == "op" and tok.value == "(":
            self.i += 1
            saved = self.no_gt, self.no_in
            self.no_gt = self.no_in = False
            items = self.expr_list()
            self.no_gt, self.no_in = saved
            self.take(")")
            if len(items) > 1:
                return ("group", items)
            return ("paren", items[0])
        if tok.kind == "builtin":
            self.i += 1
            name = tok.value
            args: list = []
            if self.at("("):
                self.i += 1
                saved = self.no_gt, self.no_in
                self.no_gt = self.no_in = False
                if not self.at(")"):
                    args = self.expr_list()
                self.no_gt, self.no_in = saved
                self.take(")")
            elif name != "length":
                raise self.error()
            return ("call", name, args)
        if tok.kind == "funcname":
            raise AwkError(f"line {tok.line}: function {tok.value} never defined")
        if tok.kind == "name":
            self.i += 1
            if self.at("["):
                self.i += 1
                keys = self.expr_list()
                self.take("]")
                return ("index", tok.value, keys)
            return ("var", tok.value)
        if tok.kind == "op" and tok.value == "-":
            self.i += 1
            return ("neg", self.primary())
        raise self.error()

    def primary_for_field(self) -> tuple:
        return self.primary()


# -- interpreter -------------------------------------------------------------------------------
class Interpreter:
    def __init__(self, ctx: Context, program: tuple[list, list, list], assigns: dict[str, str]) -> None:
        self.ctx = ctx
        self.begin, self.main, self.end = program
        self.vars: dict[str, Any] = {"FS": " ", "OFS": " ", "ORS": "\n", "RS": "\n", "NR": 0.0, "NF": 0.0,
                                     "FNR": 0.0, "FILENAME": "", "SUBSEP": "\x1c", "RSTART": 0.0, "RLENGTH": -1.0,
                                     "CONVFMT": "%.6g", "OFMT": "%.6g"}
        self.arrays: dict[str, dict[str, Any]] = {"ENVIRON": {k: StrNum(v) for k, v in ctx.env.items()}}
        for name, value in assigns.items():
            self.vars[name] = StrNum(_unescape(value))
        self.fields: list[Any] = [StrNum("")]
        self.steps = 0
        self.out: list[str] = []
        self.files: dict[str, bool] = {}
        self.random = random.Random(0)
        self.regex_cache: dict[str, re.Pattern[str]] = {}

    # records and fields -------------------------------------------------------------------
    def set_record(self, text: str) -> None:
        self.fields = [StrNum(text)]
        self._split_fields()

    def _split_fields(self) -> None:
        text = self.fields[0]
        fs = to_str(self.vars.get("FS", " "))
        if fs == " ":
            parts = text.split()
        elif text == "":
            parts = []
        elif len(fs) == 1 and fs != "\\":
            parts = text.split(fs) if fs != "\t" else text.split("\t")
        else:
            parts = self.regex(fs).split(text)
        self.fields = [self.fields[0], *(StrNum(p) for p in parts)]
        self.vars["NF"] = float(len(parts))

    def get_field(self, index: float) -> Any:
        i = int(index)
        if i < 0:
            raise AwkError(f"run time error: negative field index ${i}")
        if i < len(self.fields):
            return self.fields[i]
        return UNINIT

    def set_field(self, index: float, value: Any) -> None:
        i = int(index)
        if i < 0:
            raise AwkError(f"run time error: negative field index ${i}")
        if i > 100_000:
            raise AwkError(f"run time error: field index ${i} too large")
        if i == 0:
            self.fields = [StrNum(to_str(value))]
            self._split_fields()
            return
        while len(self.fields) <= i:
            self.fields.append(StrNum(""))
        self.fields[i] = value
        self.vars["NF"] = float(len(self.fields) - 1)
        self._rebuild()

    def _rebuild(self) -> None:
        ofs = to_str(self.vars["OFS"])
        self.fields[0] = StrNum(ofs.join(to_str(f) for f in self.fields[1:]))

    def set_nf(self, value: float) -> None:
        n = max(0, int(value))
        fields = self.fields[1:n + 1]
        fields += [StrNum("")] * (n - len(fields))
        self.fields = [self.fields[0], *fields]
        self.vars["NF"] = float(n)
        self._rebuild()

    def regex(self, pattern: str) -> re.Pattern[str]:
        compiled = self.regex_cache.get(pattern)
        if compiled is None:
            try:
                compiled = re.compile(posix_regex(pattern, True))
            except (re.error, RegexError):
                raise AwkError(f"regular expression compile failed (missing operand)\n{pattern}") from None
            if len(self.regex_cache) < 256:
                self.regex_cache[pattern] = compiled
        return compiled

    # evaluation ---------------------------------------------------------------------------------
    def tick(self) -> None:
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise AwkError("run time error: program stopped after too many steps")

    def lvalue_set(self, node: tuple, value: Any) -> None:
        kind = node[0]
        if kind == "var":
            name = node[1]
            if name in self.arrays:
                raise AwkError(f"run time error: can't assign to {name}; it's an array name.")
            if name == "NF":
                self.set_nf(to_num(value))
            else:
                self.vars[name] = value
        elif kind == "field":
            self.set_field(to_num(self.eval(node[1])), value)
        elif kind == "index":
            self.array(node[1])[self.key(node[2])] = value

    def array(self, name: str) -> dict[str, Any]:
        if name in self.vars and name not in self.arrays:
            raise AwkError(f"run time error: can't use scalar {name} as array")
        return self.arrays.setdefault(name, {})

    def key(self, keys: list) -> str:
        return to_str(self.vars["SUBSEP"]).join(to_str(self.eval(k)) for k in keys)

    def eval(self, node: tuple) -> Any:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "str":
            return node[1]
        if kind == "ere":
            return float(bool(self.regex(node[1]).search(self.fields[0])))
        if kind == "var":
            name = node[1]
            if name in self.arrays:
                raise AwkError(f"run time error: can't use array {name} in scalar context")
            return self.vars.get(name, UNINIT)
        if kind == "field":
            return self.get_field(to_num(self.eval(node[1])))
        if kind == "index":
            arr = self.array(node[1])
            k = self.key(node[2])
            if k not in arr:
                arr[k] = UNINIT
            return arr[k]
        if kind == "paren":
            return self.eval(node[1])
        if kind == "group":
            return to_str(self.eval(node[1][-1]))
        if kind == "concat":
            return to_str(self.eval(node[1])) + to_str(self.eval(node[2]))
        if kind == "bin":
            return self.arith(node[1], to_num(self.eval(node[2])), to_num(self.eval(node[3])))
        if kind == "neg":
            return -to_num(self.eval(node[1]))
        if kind == "pos":
            return to_num(self.eval(node[1]))
        if kind == "not":
            return float(not to_bool(self.eval(node[1])))
        if kind == "and":
            return float(to_bool(self.eval(node[1])) and to_bool(self.eval(node[2])))
        if kind == "or":
            return float(to_bool(self.eval(node[1])) or to_bool(self.eval(node[2])))
        if kind == "cond":
            return self.eval(node[2]) if to_bool(self.eval(node[1])) else self.eval(node[3])
        if kind == "cmp":
            return float(self.compare(node[1], self.eval(node[2]), self.eval(node[3])))
        if kind == "match":
            subject = to_str(self.eval(node[2]))
            target = node[3]
            pattern = target[1] if target[0] == "ere" else to_str(self.eval(target))
            found = bool(self.regex(pattern).search(subject))
            return float(found != node[1])
        if kind == "in":
            return float(self.key(node[1]) in self.array(node[2]))
        if kind == "assign":
            op, target, expr = node[1], node[2], node[3]
            value = self.eval(expr)
            if op != "=":
                value = self.arith(op[0], to_num(self.eval(target)), to_num(value))
            self.lvalue_set(target, value)
            return value
        if kind == "preinc":
            value = to_num(self.eval(node[2])) + node[1]
            self.lvalue_set(node[2], value)
            return value
        if kind == "postinc":
            old = to_num(self.eval(node[2]))
            self.lvalue_set(node[2], old + node[1])
            return old
        if kind == "call":
            return self.call(node[1], node[2])
        raise AwkError(f"run time error: cannot evaluate {kind}")

    def arith(self, op: str, a: float, b: float) -> float:
        try:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                if b == 0:  # mawk divides as IEEE 754 does: inf, -inf, or -nan for 0/0
                    return NEG_NAN if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
                return a / b
            if op == "%":
                if b == 0 or math.isinf(a):
                    return NEG_NAN
                return math.fmod(a, b)
            if op == "^":
                if a == 0 and b < 0:
                    return math.inf
                result = a ** b
                return NEG_NAN if isinstance(result, complex) else float(result)
        except OverflowError:
            return math.inf
        raise AwkError(f"run time error: bad operator {op}")

    def compare(self, op: str, a: Any, b: Any) -> bool:
        if _numeric_like(a) and _numeric_like(b):
            x: Any = to_num(a)
            y: Any = to_num(b)
        else:
            x, y = to_str(a), to_str(b)
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]

    def call(self, name: str, args: list) -> Any:
        n = len(args)
        if name == "length":
            if n == 0:
                return float(len(self.fields[0]))
            if args[0][0] == "var" and args[0][1] in self.arrays:
                return float(len(self.arrays[args[0][1]]))
            return float(len(to_str(self.eval(args[0]))))
        if name == "substr":
            self._arity(name, n, 2, 3)
            s = to_str(self.eval(args[0]))
            start = to_num(self.eval(args[1]))
            length = to_num(self.eval(args[2])) if n == 3 else math.inf
            begin = round(start) if not math.isinf(start) else start
            end = begin + (round(length) if not math.isinf(length) else length)
            begin = max(begin, 1)
            end = min(end, len(s) + 1)
            return s[int(begin) - 1:int(end) - 1] if end > begin else ""
        if name == "index":
            self._arity(name, n, 2, 2)
            return float(to_str(self.eval(args[0])).find(to_str(self.eval(args[1]))) + 1)
        if name == "split":
            self._arity(name, n, 2, 3)
            s = to_str(self.eval(args[0]))
            if args[1][0] != "var":
                raise AwkError("run time error: split: second argument must be an array")
            arr = self.arrays.setdefault(args[1][1], {})
            arr.clear()
            sep = to_str(self.eval(args[2])) if n == 3 and args[2][0] != "ere" else (
                args[2][1] if n == 3 else to_str(self.vars["FS"]))
            if sep == " ":
                parts = s.split()
            elif s == "":
                parts = []
            elif len(sep) == 1 and (n < 3 or args[2][0] != "ere"):
                parts = s.split(sep)
            else:
                parts = self.regex(sep).split(s)
            for i, p in enumerate(parts[:100_000], 1):
                arr[str(i)] = StrNum(p)
            return float(len(parts))
        if name in ("sub", "gsub"):
            self._arity(name, n, 2, 3)
            pattern = args[0][1] if args[0][0] == "ere" else to_str(self.eval(args[0]))
            repl = to_str(self.eval(args[1]))
            target = args[2] if n == 3 else ("field", ("num", 0.0))
            if target[0] not in ("var", "field", "index"):
                raise AwkError(f"run time error: {name}: third argument is not a variable")
            s = to_str(self.eval(target))
            count = 0

            def replace(m: re.Match[str]) -> str:
                nonlocal count
                count += 1
                out, i = [], 0
                while i < len(repl):
                    if repl[i] == "\\" and i + 1 < len(repl) and repl[i + 1] in "&\\":
                        out.append(repl[i + 1])
                        i += 2
                    elif repl[i] == "&":
                        out.append(m.group(0))
                        i += 1
                    else:
                        out.append(repl[i])
                        i += 1
                return "".join(out)


            result = substitute_all(self.regex(pattern), replace, s, count=0 if name == "gsub" else 1)
            if count:
                self.lvalue_set(target, result)
            return float(count)
        if name == "match":
            self._arity(name, n, 2, 2)
            s = to_str(self.eval(args[0]))
            pattern = args[1][1] if args[1][0] == "ere" else to_str(self.eval(args[1]))
            m = self.regex(pattern).search(s)
            self.vars["RSTART"] = float(m.start() + 1) if m else 0.0
            self.vars["RLENGTH"] = float(m.end() - m.start()) if m else -1.0
            return self.vars["RSTART"]
        if name == "sprintf":
            if not args:
                raise AwkError("run time error: sprintf: no format")
            return awk_format(to_str(self.eval(args[0])), [self.eval(a) for a in args[1:]], "sprintf")
        if name in ("tolower", "toupper"):
            self._arity(name, n, 1, 1)
            s = to_str(self.eval(args[0]))
            return s.lower() if name == "tolower" else s.upper()
        if name == "int":
            self._arity(name, n, 1, 1)
            v = to_num(self.eval(args[0]))
            return float(math.trunc(v)) if math.isfinite(v) else v
        if name in ("sqrt", "exp", "log", "sin", "cos"):
            self._arity(name, n, 1, 1)
            v = to_num(self.eval(args[0]))
            if name == "log" and v == 0:
                return -math.inf
            try:
                return float(getattr(math, name)(v))
            except OverflowError:
                return math.inf
            except ValueError:
                return NEG_NAN
        if name == "atan2":
            self._arity(name, n, 2, 2)
            return math.atan2(to_num(self.eval(args[0])), to_num(self.eval(args[1])))
        if name == "rand":
            return self.random.random()
        if name == "srand":
            seed = to_num(self.eval(args[0])) if args else 0.0
            self.random.seed(seed)
            return 0.0
        if name in ("close", "fflush"):
            return 0.0
        raise AwkError(f"run time error: {name}() is not supported by this awk")

    @staticmethod
    def _arity(name: str, n: int, low: int, high: int) -> None:
        if not low <= n <= high:
            raise AwkError(f"line 1: wrong number of arguments in call to {name}")

    # statements ------------------------------------------------------------------------------
    def run(self, node: tuple | None) -> None:
        if node is None:
            return
        self.tick()
        kind = node[0]
        if kind == "block":
            for stmt in node[1]:
                self.run(stmt)
        elif kind == "expr":
            self.eval(node[1])
        elif kind in ("print", "printf"):
            values = [self.eval(a) for a in node[1]]
            if kind == "print":
                if not node[1]:
                    text = to_str(self.fields[0])
                else:
                    ofmt = to_str(self.vars["OFMT"])
                    text = to_str(self.vars["OFS"]).join(
                        num_str(v, ofmt) if isinstance(v, float) else to_str(v) for v in values)
                text += to_str(self.vars["ORS"])
            else:
                text = awk_format(to_str(values[0]), values[1:])
            self.write(text, node[2])
        elif kind == "if":
            if to_bool(self.eval(node[1])):
                self.run(node[2])
            else:
                self.run(node[3])
        elif kind == "while":
            while to_bool(self.eval(node[1])):
                self.tick()
                try:
                    self.run(node[2])
                except _Break:
                    break
                except _Continue:
                    continue
        elif kind == "do":
            while True:
                self.tick()
                try:
                    self.run(node[1])
                except _Break:
                    break
                except _Continue:
                    pass
                if not to_bool(self.eval(node[2])):
                    break
        elif kind == "for":
            if node[1] is not None:
                self.run(node[1])
            while node[2] is None or to_bool(self.eval(node[2])):
                self.tick()
                try:
                    self.run(node[4])
                except _Break:
                    break
                except _Continue:
                    pass
                if node[3] is not None:
                    self.run(node[3])
        elif kind == "forin":
            for k in list(self.array(node[2])):
                self.tick()
                self.vars[node[1]] = StrNum(k)
                try:
                    self.run(node[3])
                except _Break:
                    break
                except _Continue:
                    continue
        elif kind == "delete":
            arr = self.array(node[1])
            if node[2] is None:
                arr.clear()
            else:
                arr.pop(self.key(node[2]), None)
        elif kind == "next":
            raise _Next()
        elif kind == "exit":
            raise _Exit(int(to_num(self.eval(node[1]))) if node[1] is not None else 0)
        elif kind == "break":
            raise _Break()
        elif kind == "continue":
            raise _Continue()
        else:
            raise AwkError(f"run time error: cannot run {kind}")

    def write(self, text: str, dest: tuple | None) -> None:
        if dest is None:
            self.ctx.out(text)
            return
        mode, target = dest
        path = to_str(self.eval(target))
        if path in ("/dev/stdout", "-"):
            self.ctx.out(text)
            return
        if path == "/dev/stderr":
            self.ctx.err(text)
            return
        append = mode == ">>" or path in self.files
        try:
            self.ctx.fs.write(path, text, append=append)
        except FsError as exc:
            raise AwkError(f"cannot open \"{path}\" for output ({exc.strerror})") from None
        self.files[path] = True

    def pattern_matches(self, rule: list) -> bool:
        pattern, pattern2 = rule[0], rule[1]
        if pattern is None:
            return True
        if pattern2 is None:
            return to_bool(self.eval(pattern))
        if rule[3]:
            if to_bool(self.eval(pattern2)):
                rule[3] = False
            return True
        if to_bool(self.eval(pattern)):
            rule[3] = not to_bool(self.eval(pattern2))
            return True
        return False


def awk_format(fmt: str, values: list[Any], function: str = "printf") -> str:
    """printf/sprintf formatting with awk's conversions (%c takes a number or a string)."""
    out: list[str] = []
    index = 0
    pos = 0
    for m in re.finditer(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcs%])", fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, precision, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue

        def take() -> Any:
            nonlocal index
            if index >= len(values):
                raise AwkError(f'run time error: not enough arguments passed to {function}("{fmt}")')
            value = values[index]
            index += 1
            return value

        if width == "*":
            width = str(int(to_num(take())))
        if precision == "*":
            precision = str(int(to_num(take())))
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        value = take()
        try:
            if conv in "diouxX":
                num = to_num(value)
                integer = int(num) if math.isfinite(num) else 0
                out.append((spec + ("d" if conv in "iu" else conv)) % integer)
            elif conv in "eEfgG":
                out.append((spec + conv) % to_num(value))
            elif conv == "c":
                if isinstance(value, float):
                    out.append((spec + "s") % chr(int(value) % 0x110000))
                else:
                    out.append((spec + "s") % to_str(value)[:1])
            else:
                out.append((spec + "s") % to_str(value))
        except (ValueError, OverflowError):
            out.append(m.group(0))
    out.append(fmt[pos:])
    return "".join(out)


def _unescape(text: str) -> str:
    esc = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", '"': '"', "/": "/"}
    return re.sub(r"\\(.)", lambda m: esc.get(m.group(1), "\\" + m.group(1)), text)


class Awk(RawCommand):
    name = "awk"
    summary = "pattern scanning and processing (a documented subset of POSIX awk)"
    section = "Files and text"
    description = __doc__ or ""

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        fs: str | None = None
        assigns: dict[str, str] = {}
        program_text: str | None = None
        while words and words[0].startswith("-") and words[0] != "-":
            flag = words.pop(0)
            if flag == "--":
                break
            if flag in ("--help", "-h", "-W"):
                ctx.out(self.help_text())
                return 0
            if flag.startswith("-F"):
                value = flag[2:] if len(flag) > 2 else (words.pop(0) if words else None)
                if value is None:
                    raise ctx.fail("awk: option requires an argument -- F", 2)
                fs = "\t" if value in ("\\t", "t") else _unescape(value)
            elif flag.startswith("-v"):
                value = flag[2:] if len(flag) > 2 else (words.pop(0) if words else None)
                if value is None or "=" not in value:
                    raise ctx.fail(f"awk: improper assignment: -v {value or ''}", 2)
                name, _, val = value.partition("=")
                assigns[name] = val
            elif flag.startswith("-f"):
                path = flag[2:] if len(flag) > 2 else (words.pop(0) if words else None)
                if path is None:
                    raise ctx.fail("awk: option requires an argument -- f", 2)
                try:
                    program_text = ctx.fs.read(path)
                except FsError as exc:
                    raise ctx.fail(f"awk: cannot open {path} ({exc.strerror})", 2) from None
            else:
                raise ctx.fail(f"awk: not an option: {flag}", 2)
        if program_text is None:
            if not words:
                raise ctx.fail("usage: awk [-F value] [-v var=value] [--] 'program text' [file ...]\n"
                               "usage: awk [-F value] [-v var=value] [-f program-file] [--] [file ...]", 2)
            program_text = words.pop(0)
        try:
            program = Parser(tokenize(program_text)).program()
        except AwkError as exc:
            raise ctx.fail(f"awk: {exc}", 2) from None
        except RecursionError:
            raise ctx.fail("awk: program too deeply nested", 2) from None
        interp = Interpreter(ctx, program, assigns)
        if fs is not None:
            interp.vars["FS"] = fs
        return self._run(ctx, interp, words)

    def _run(self, ctx: Context, interp: Interpreter, operands: list[str]) -> int:
        status = 0
        try:
            try:
                for block in interp.begin:
                    interp.run(block)
                if interp.main or interp.end:
                    inputs = [w for w in operands if not _is_assignment(w)] or ["-"]
                    for word in operands if any(not _is_assignment(w) for w in operands) else operands + ["-"]:
                        if _is_assignment(word):
                            name, _, value = word.partition("=")
                            interp.vars[name] = StrNum(_unescape(value))
                            continue
                        if word not in inputs:
                            continue
                        try:
                            text = ctx.stdin if word == "-" else ctx.fs.read(word)
                        except FsError as exc:
                            ctx.err(f"awk: cannot open {word} ({exc.strerror})\n")
                            status = 2
                            continue
                        interp.vars["FILENAME"] = word
                        interp.vars["FNR"] = 0.0
                        self._records(interp, text)
            except _Exit as stop:
                status = stop.status
                interp.steps = 0
            try:
                for block in interp.end:
                    interp.run(block)
            except _Exit as stop:
                status = stop.status
        except AwkError as exc:
            ctx.err(f"awk: {exc}\n\tFILENAME=\"{to_str(interp.vars['FILENAME'])}\" "
                    f"FNR={num_str(to_num(interp.vars['FNR']))} NR={num_str(to_num(interp.vars['NR']))}\n")
            return 2
        except (_Next, _Break, _Continue):
            ctx.err("awk: improper use of next, break or continue\n")
            return 2
        except RecursionError:
            ctx.err("awk: expression too deeply nested\n")
            return 2
        return status

    @staticmethod
    def _records(interp: Interpreter, text: str) -> None:
        rs = to_str(interp.vars["RS"])
        if rs == "\n":
            records = text.split("\n")
            if text.endswith("\n"):
                records.pop()
        elif rs == "":
            records = [r for r in re.split(r"\n\n+", text.strip("\n")) if r]
        else:
            records = text.split(rs[0])
            if records and records[-1] in ("", "\n"):
                records.pop()
        for record in records:
            interp.vars["NR"] = to_num(interp.vars["NR"]) + 1
            interp.vars["FNR"] = to_num(interp.vars["FNR"]) + 1
            interp.set_record(record)
            try:
                for rule in interp.main:
                    interp.tick()
                    if interp.pattern_matches(rule):
                        if rule[2] is None:
                            interp.write(to_str(interp.fields[0]) + to_str(interp.vars["ORS"]), None)
                        else:
                            interp.run(rule[2])
            except _Next:
                continue


def _is_assignment(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word))


def commands() -> list[Command]:
    return [Awk()]

