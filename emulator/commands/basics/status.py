"""test and [, true, false and :, whose only output is their status."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

SECTION = "Shell"


class Test(RawCommand):
    name = "test"
    builtin = True
    directory = None
    summary = "evaluate a conditional expression ([ EXPR ], test EXPR): -f -d -e -s -n -z, = != -eq -lt ..."
    section = SECTION
    aliases = ("[", "[[")
    synopsis = "EXPRESSION"
    description = "Also [ EXPRESSION ] and [[ EXPRESSION ]]. The status is 0 when EXPRESSION is true, 1 when false, 2 on an error."
    notes = ("Binary operators: STRING = STRING, STRING != STRING, STRING < STRING, STRING > STRING, "
             "and -eq -ne -lt -le -gt -ge between integers. EXPR -a EXPR and EXPR -o EXPR (also && and ||) "
             "combine expressions; ! EXPR negates one.")
    flags = (
        Flag("-n", "", "STRING", "the length of STRING is not zero"),
        Flag("-z", "", "STRING", "the length of STRING is zero"),
        Flag("-e", "", "FILE", "FILE exists (also -a FILE)"),
        Flag("-d", "", "FILE", "FILE exists and is a directory"),
        Flag("-f", "", "FILE", "FILE exists and is a regular file"),
        Flag("-s", "", "FILE", "FILE exists and is not empty"),
        Flag("-r", "", "FILE", "FILE exists and is readable"),
        Flag("-w", "", "FILE", "FILE exists and is writable"),
        Flag("-x", "", "FILE", "FILE exists and is executable"),
    )
    _CLOSERS = {"[": "]", "[[": "]]"}

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        name = ctx.argv[0]
        if name in self._CLOSERS:
            closer = self._CLOSERS[name]
            if not words or words[-1] != closer:
                raise ctx.fail(f"bash: {name}: missing `{closer}'", 2)
            words = words[:-1]
        try:
            return 0 if self._or(ctx, words) else 1
        except ValueError as exc:
            raise ctx.fail(f"bash: {name}: {exc}", 2) from None

    def _or(self, ctx: Context, words: list[str]) -> bool:
        for op in ("-o", "||"):
            if op in words:
                i = words.index(op)
                return self._or(ctx, words[:i]) or self._or(ctx, words[i + 1:])
        for op in ("-a", "&&"):
            if op in words[1:-1]:
                i = words.index(op, 1)
                return self._or(ctx, words[:i]) and self._or(ctx, words[i + 1:])
        return self._expr(ctx, words)

    def _expr(self, ctx: Context, words: list[str]) -> bool:
        if not words:
            return False
        if words[0] == "!":
            return not self._expr(ctx, words[1:])
        if len(words) == 1:
            return words[0] != ""
        if len(words) == 2:
            return self._unary(ctx, words[0], words[1])
        if len(words) == 3:
            return self._binary(words[0], words[1], words[2])
        raise ValueError("too many arguments")

    @staticmethod
    def _unary(ctx: Context, op: str, operand: str) -> bool:
        fs = ctx.fs
        if op == "-n":
            return operand != ""
        if op == "-z":
            return operand == ""
        if op in ("-e", "-a"):
            return fs.exists(operand)
        if op == "-d":
            return fs.isdir(operand)
        if op in ("-f", "-s", "-r", "-w", "-x"):
            if not fs.exists(operand) or fs.isdir(operand) and op in ("-f", "-s"):
                return False
            return op != "-s" or fs.read(operand) != ""
        raise ValueError(f"{op}: unary operator expected")

    @staticmethod
    def _binary(left: str, op: str, right: str) -> bool:
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        numeric = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
                   "-gt": int.__gt__, "-ge": int.__ge__}
        if op in numeric:
            for value in (left, right):
                if not value.strip().lstrip("-").isdecimal():
                    raise ValueError(f"{value}: integer expression expected")
            return bool(numeric[op](int(left), int(right)))
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        raise ValueError(f"{op}: binary operator expected")



class TrueCommand(RawCommand):
    name = "true"
    reads_only = True
    builtin = True
    summary = "do nothing, successfully"
    section = SECTION
    synopsis = "[ignored command line arguments]"
    aliases = (":",)

    def execute(self, ctx: Context) -> Outcome:
        return 0



class FalseCommand(RawCommand):
    name = "false"
    reads_only = True
    builtin = True
    summary = "do nothing, unsuccessfully"
    section = SECTION
    synopsis = "[ignored command line arguments]"

    def execute(self, ctx: Context) -> Outcome:
        return 1
