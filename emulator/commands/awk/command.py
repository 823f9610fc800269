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

import re
from collections import deque

from emulator.commands.awk.errors import AwkError, AwkLimit, Break, Continue, Exit, Next
from emulator.commands.awk.interpreter import Interpreter
from emulator.commands.awk.lexer import tokenize
from emulator.commands.awk.parser import Parser
from emulator.commands.awk.values import StrNum, num_str, to_num, to_str, unescape
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION, flag_named
from emulator.commands.kit.spec import Flag
from emulator.vfs import FsError


class Awk(RawCommand):
    name = "awk"
    summary = "pattern scanning and processing (a documented subset of POSIX awk)"
    section = SECTION
    description = __doc__ or ""
    synopsis = "[-F FS] [-v VAR=VALUE]... [--] 'PROGRAM' [FILE | VAR=VALUE]...\n  or:  awk [-F FS] [-v VAR=VALUE]... -f PROGFILE... [--] [FILE | VAR=VALUE]..."
    flags = (
        Flag("-F", "", "FS", "set the field separator FS (t or \\t: a tab)"),
        Flag("-v", "", "VAR=VALUE", "assign VALUE to the variable VAR before the program starts"),
        Flag("-f", "", "PROGFILE", "read the program from PROGFILE (several -f: their texts in turn)"),
        Flag("-W", "", "OPTION", "help, usage or version (or a prefix of one): print this help; other -W options: a warning"),
        Flag("", "--help", "", "print this help"),
    )

    def execute(self, ctx: Context) -> Outcome:
        words = deque(ctx.argv[1:])
        fs: str | None = None
        assigns: dict[str, str] = {}
        program_files: list[str] = []
        while words and words[0].startswith("-") and words[0] != "-":
            word = words.popleft()
            if word == "--":
                break
            flag = flag_named(self.flags, word if word.startswith("--") else word[:2])
            if flag is None:
                raise ctx.fail(f"awk: not an option: {word}", 2)
            if flag.long == "--help":
                ctx.out(self.help_text())
                return 0
            value = word[2:] or (words.popleft() if words else None)
            if value is None:
                raise ctx.fail(f"awk: option {flag.short} lacks argument", 2)
            if flag.short == "-F":
                fs = "\t" if value in ("\\t", "t") else unescape(value)
            elif flag.short == "-v":
                if "=" not in value or value.startswith("="):
                    raise ctx.fail(f"awk: improper assignment: -v {value}", 2)
                name, _, val = value.partition("=")
                assigns[name] = val
            elif flag.short == "-f":
                try:
                    program_files.append(ctx.fs.read(value))
                except FsError as exc:
                    raise ctx.fail(f"awk: cannot open {value} ({exc.strerror})", 2) from None
            elif any(choice.startswith(value) for choice in ("help", "usage", "version")):
                ctx.out(self.help_text())
                return 0
            else:
                ctx.err(f"awk: vacuous option: -W {value}\n")
        program_text = "\n".join(program_files) if program_files else None
        if program_text is None:
            if not words:
                raise ctx.fail("usage: awk [-F value] [-v var=value] [--] 'program text' [file ...]\n"
                               "usage: awk [-F value] [-v var=value] [-f program-file] [--] [file ...]", 2)
            program_text = words.popleft()
        try:
            program = Parser(tokenize(program_text)).program()
        except AwkError as exc:
            raise ctx.fail(f"awk: {exc}", 2) from None
        except RecursionError:
            raise ctx.fail("awk: program too deeply nested", 2) from None
        interp = Interpreter(ctx, program, assigns)
        if fs is not None:
            interp.vars["FS"] = fs
        return self._run(ctx, interp, list(words))

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
                            interp.vars[name] = StrNum(unescape(value))
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
            except Exit as stop:
                status = stop.status
                interp.steps = 0
            try:
                for block in interp.end:
                    interp.run(block)
            except Exit as stop:
                status = stop.status
        except AwkLimit as exc:
            ctx.err(f"awk: {exc}\n")
            return 2
        except AwkError as exc:
            ctx.err(f"awk: {exc}\n\tFILENAME=\"{to_str(interp.vars['FILENAME'])}\" "
                    f"FNR={num_str(to_num(interp.vars['FNR']))} NR={num_str(to_num(interp.vars['NR']))}\n")
            return 2
        except (Next, Break, Continue):
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
            except Next:
                continue


def _is_assignment(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word))
