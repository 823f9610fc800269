"""awk's interpreter: records split into fields, expressions evaluated, statements run.

Work stops at :data:`~emulator.limits.AWK_STEP_LIMIT` statements and loop iterations, so that no program
runs forever; a string stops at :data:`~emulator.limits.VALUE_LIMIT` characters and a record at
:data:`~emulator.limits.AWK_FIELD_LIMIT` fields. Each says so in one line (:class:`AwkLimit`).
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from emulator.commands.awk.builtins import awk_format, call
from emulator.commands.awk.errors import AwkError, AwkLimit, Break, Continue, Exit, Next, check_fields, check_string
from emulator.commands.awk.values import (
    NEG_NAN,
    UNINIT,
    StrNum,
    num_str,
    numeric_like,
    to_bool,
    to_num,
    to_str,
    unescape,
)
from emulator.commands.kit.command import Context
from emulator.commands.kit.regex import Regex, RegexError, RegexRefused, compile_python, posix_regex
from emulator.limits import AWK_STEP_LIMIT, limit_reached
from emulator.vfs import FsError


class Interpreter:
    """One run of a parsed program: its variables, arrays, current record and fields, and the files it wrote."""

    def __init__(self, ctx: Context, program: tuple[list, list, list], assigns: dict[str, str]) -> None:
        self.ctx = ctx
        self.begin, self.main, self.end = program
        self.vars: dict[str, Any] = {"FS": " ", "OFS": " ", "ORS": "\n", "RS": "\n", "NR": 0.0, "NF": 0.0,
                                     "FNR": 0.0, "FILENAME": "", "SUBSEP": "\x1c", "RSTART": 0.0, "RLENGTH": -1.0,
                                     "CONVFMT": "%.6g", "OFMT": "%.6g"}
        self.arrays: dict[str, dict[str, Any]] = {"ENVIRON": {k: StrNum(v) for k, v in ctx.env.items()}}
        for name, value in assigns.items():
            self.vars[name] = StrNum(unescape(value))
        self.fields: list[Any] = [StrNum("")]
        self.steps = 0
        self.out: list[str] = []
        self.files: dict[str, bool] = {}
        self.random = random.Random(0)
        self.regex_cache: dict[str, Regex] = {}

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
        check_fields(len(parts))
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
        check_fields(i)
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
        fields = [to_str(f) for f in self.fields[1:]]
        check_string(sum(map(len, fields)) + len(ofs) * max(0, len(fields) - 1))
        self.fields[0] = StrNum(ofs.join(fields))

    def set_nf(self, value: float) -> None:
        n = max(0, int(value))
        check_fields(n)
        fields = self.fields[1:n + 1]
        fields += [StrNum("")] * (n - len(fields))
        self.fields = [self.fields[0], *fields]
        self.vars["NF"] = float(n)
        self._rebuild()

    def regex(self, pattern: str) -> Regex:
        compiled = self.regex_cache.get(pattern)
        if compiled is None:
            try:
                compiled = compile_python(posix_regex(pattern, True))
            except RegexRefused as exc:
                raise AwkError(f"regular expression refused: {exc}\n{pattern}") from None
            except (re.error, RegexError):
                raise AwkError(f"regular expression compile failed (missing operand)\n{pattern}") from None
            if len(self.regex_cache) < 256:
                self.regex_cache[pattern] = compiled
        return compiled

    # evaluation ---------------------------------------------------------------------------------
    def tick(self) -> None:
        self.steps += 1
        if self.steps > AWK_STEP_LIMIT:
            raise AwkLimit(limit_reached(f"program stopped after {AWK_STEP_LIMIT} steps"))

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
            left, right = to_str(self.eval(node[1])), to_str(self.eval(node[2]))
            check_string(len(left) + len(right))
            return left + right
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
            return call(self, node[1], node[2])
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
        if numeric_like(a) and numeric_like(b):
            x: Any = to_num(a)
            y: Any = to_num(b)
        else:
            x, y = to_str(a), to_str(b)
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]


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
                except Break:
                    break
                except Continue:
                    continue
        elif kind == "do":
            while True:
                self.tick()
                try:
                    self.run(node[1])
                except Break:
                    break
                except Continue:
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
                except Break:
                    break
                except Continue:
                    pass
                if node[3] is not None:
                    self.run(node[3])
        elif kind == "forin":
            for k in list(self.array(node[2])):
                self.tick()
                self.vars[node[1]] = StrNum(k)
                try:
                    self.run(node[3])
                except Break:
                    break
                except Continue:
                    continue
        elif kind == "delete":
            arr = self.array(node[1])
            if node[2] is None:
                arr.clear()
            else:
                arr.pop(self.key(node[2]), None)
        elif kind == "next":
            raise Next()
        elif kind == "exit":
            raise Exit(int(to_num(self.eval(node[1]))) if node[1] is not None else 0)
        elif kind == "break":
            raise Break()
        elif kind == "continue":
            raise Continue()
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
