"""awk's built-in functions (``length substr index split sub gsub match sprintf`` and the arithmetic ones) and printf's formatting."""

from __future__ import annotations

import math
import random
import re
from typing import Any, Protocol

from emulator.commands.awk.errors import AwkError, AwkLimit, check_fields, check_string
from emulator.commands.awk.values import NEG_NAN, StrNum, to_num, to_str
from emulator.commands.kit.formats import oversized_field
from emulator.commands.kit.regex import Found, Regex, substitute_all


class Interpreter(Protocol):
    """What a built-in function needs of the running program (the interpreter, which calls these)."""

    vars: dict[str, Any]
    arrays: dict[str, dict[str, Any]]
    fields: list[Any]
    random: random.Random

    def eval(self, node: Any) -> Any: ...

    def regex(self, pattern: str) -> Regex: ...

    def lvalue_set(self, node: tuple, value: Any) -> None: ...


def call(interp: Interpreter, name: str, args: list) -> Any:
    """The value of the built-in function ``name`` called with the argument nodes ``args``."""
    n = len(args)
    if name == "length":
        if n == 0:
            return float(len(interp.fields[0]))
        if args[0][0] == "var" and args[0][1] in interp.arrays:
            return float(len(interp.arrays[args[0][1]]))
        return float(len(to_str(interp.eval(args[0]))))
    if name == "substr":
        _arity(name, n, 2, 3)
        s = to_str(interp.eval(args[0]))
        start = to_num(interp.eval(args[1]))
        length = to_num(interp.eval(args[2])) if n == 3 else math.inf
        begin = round(start) if not math.isinf(start) else start
        end = begin + (round(length) if not math.isinf(length) else length)
        begin = max(begin, 1)
        end = min(end, len(s) + 1)
        return s[int(begin) - 1:int(end) - 1] if end > begin else ""
    if name == "index":
        _arity(name, n, 2, 2)
        return float(to_str(interp.eval(args[0])).find(to_str(interp.eval(args[1]))) + 1)
    if name == "split":
        _arity(name, n, 2, 3)
        s = to_str(interp.eval(args[0]))
        if args[1][0] != "var":
            raise AwkError("run time error: split: second argument must be an array")
        arr = interp.arrays.setdefault(args[1][1], {})
        arr.clear()
        sep = to_str(interp.eval(args[2])) if n == 3 and args[2][0] != "ere" else (
            args[2][1] if n == 3 else to_str(interp.vars["FS"]))
        if sep == " ":
            parts = s.split()
        elif s == "":
            parts = []
        elif len(sep) == 1 and (n < 3 or args[2][0] != "ere"):
            parts = s.split(sep)
        else:
            parts = [p for p in interp.regex(sep).split(s) if p is not None]
        check_fields(len(parts))
        for i, p in enumerate(parts, 1):
            arr[str(i)] = StrNum(p)
        return float(len(parts))
    if name in ("sub", "gsub"):
        _arity(name, n, 2, 3)
        pattern = args[0][1] if args[0][0] == "ere" else to_str(interp.eval(args[0]))
        repl = to_str(interp.eval(args[1]))
        target = args[2] if n == 3 else ("field", ("num", 0.0))
        if target[0] not in ("var", "field", "index"):
            raise AwkError(f"run time error: {name}: third argument is not a variable")
        s = to_str(interp.eval(target))
        count = grown = 0

        def replace(m: Found) -> str:
            nonlocal count, grown
            count += 1
            grown += len(repl) + len(m.group(0)) * repl.count("&")
            check_string(len(s) + grown)
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

        result = substitute_all(interp.regex(pattern), replace, s, count=0 if name == "gsub" else 1)
        if count:
            interp.lvalue_set(target, result)
        return float(count)
    if name == "match":
        _arity(name, n, 2, 2)
        s = to_str(interp.eval(args[0]))
        pattern = args[1][1] if args[1][0] == "ere" else to_str(interp.eval(args[1]))
        m = interp.regex(pattern).search(s)
        interp.vars["RSTART"] = float(m.start() + 1) if m else 0.0
        interp.vars["RLENGTH"] = float(m.end() - m.start()) if m else -1.0
        return interp.vars["RSTART"]
    if name == "sprintf":
        if not args:
            raise AwkError("run time error: sprintf: no format")
        return awk_format(to_str(interp.eval(args[0])), [interp.eval(a) for a in args[1:]], "sprintf")
    if name in ("tolower", "toupper"):
        _arity(name, n, 1, 1)
        s = to_str(interp.eval(args[0]))
        return s.lower() if name == "tolower" else s.upper()
    if name == "int":
        _arity(name, n, 1, 1)
        v = to_num(interp.eval(args[0]))
        return float(math.trunc(v)) if math.isfinite(v) else v
    if name in ("sqrt", "exp", "log", "sin", "cos"):
        _arity(name, n, 1, 1)
        v = to_num(interp.eval(args[0]))
        if name == "log" and v == 0:
            return -math.inf
        try:
            return float(getattr(math, name)(v))
        except OverflowError:
            return math.inf
        except ValueError:
            return NEG_NAN
    if name == "atan2":
        _arity(name, n, 2, 2)
        return math.atan2(to_num(interp.eval(args[0])), to_num(interp.eval(args[1])))
    if name == "rand":
        return interp.random.random()
    if name == "srand":
        seed = to_num(interp.eval(args[0])) if args else 0.0
        interp.random.seed(seed)
        return 0.0
    if name in ("close", "fflush"):
        return 0.0
    raise AwkError(f"run time error: {name}() is not supported by this awk")


def _arity(name: str, n: int, low: int, high: int) -> None:
    if not low <= n <= high:
        raise AwkError(f"line 1: wrong number of arguments in call to {name}")


def awk_format(fmt: str, values: list[Any], function: str = "printf") -> str:
    """printf/sprintf formatting with awk's conversions (%c takes a number or a string)."""
    out: list[str] = []
    index = size = 0
    pos = 0

    def emit(text: str) -> None:
        nonlocal size
        size += len(text)
        check_string(size)
        out.append(text)

    for m in re.finditer(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcs%])", fmt):
        emit(fmt[pos:m.start()])
        pos = m.end()
        flags, width, precision, conv = m.groups()
        if conv == "%":
            emit("%")
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
        oversized = oversized_field(f"run time error: {function}", width, precision)
        if oversized:
            raise AwkLimit(oversized)
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        value = take()
        try:
            if conv in "diouxX":
                num = to_num(value)
                integer = int(num) if math.isfinite(num) else 0
                emit((spec + ("d" if conv in "iu" else conv)) % integer)
            elif conv in "eEfgG":
                emit((spec + conv) % to_num(value))
            elif conv == "c":
                if isinstance(value, float):
                    emit((spec + "s") % chr(int(value) % 0x110000))
                else:
                    emit((spec + "s") % to_str(value)[:1])
            else:
                emit((spec + "s") % to_str(value))
        except (ValueError, OverflowError):
            emit(m.group(0))
    emit(fmt[pos:])
    return "".join(out)
