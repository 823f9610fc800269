r"""sed, the stream editor: a script parsed into addressed commands, then run over the lines.

Supported: ``s///`` with ``g``, ``p``, ``I`` and a count; ``p d q Q = a i c``;
addresses ``N``, ``$``, ``/re/`` (``\%re%``, ``I``), ranges and ``!``; ``-n -E -i -e -s``.
Blocks ``{ }`` are refused with a clear message.
"""

from __future__ import annotations

import argparse
import re

from emulator.commands.kit import automaton
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, join_lines, read_input, split_lines
from emulator.commands.kit.regex import (
    Found,
    Regex,
    RegexError,
    RegexRefused,
    compile_python,
    posix_regex,
    substitute_all,
)
from emulator.commands.kit.spec import ArgumentParser
from emulator.vfs import FsError


class SedError(ValueError):
    pass


class _SedCommand:
    def __init__(self, addr1: object, addr2: object, negate: bool, cmd: str) -> None:
        self.addr1, self.addr2, self.negate, self.cmd = addr1, addr2, negate, cmd
        self.regex: Regex | None = None
        self.replacement = ""
        self.global_ = False
        self.nth = 1
        self.print_ = False
        self.text = ""
        self.active = False
        self.end_line = 0


def _sed_parse(script: str, extended: bool, expr_no: int) -> list[_SedCommand]:
    commands: list[_SedCommand] = []
    i = 0
    n = len(script)

    def fail(msg: str) -> SedError:
        return SedError(f"sed: -e expression #{expr_no}, char {i}: {msg}")

    def delimited(delim: str) -> str:
        nonlocal i
        out = []
        while i < n and script[i] != delim:
            if script[i] == "\\" and i + 1 < n:
                out.append(script[i + 1] if script[i + 1] == delim else script[i:i + 2])
                i += 2
                continue
            if script[i] == "\n":
                break
            out.append(script[i])
            i += 1
        if i >= n or script[i] != delim:
            raise fail("unterminated `s' command")
        i += 1
        return "".join(out)

    def address() -> object:
        nonlocal i
        if i < n and script[i].isdecimal():
            j = i
            while j < n and script[j].isdecimal():
                j += 1
            digits = script[i:j].lstrip("0") or "0"
            value = int(digits) if len(digits) <= 18 else 10**18  # a line that never comes (Python refuses 4300 digits)
            i = j
            return value
        if i < n and script[i] == "$":
            i += 1
            return "$"
        if i < n and (script[i] == "/" or script[i] == "\\"):
            delim = "/"
            if script[i] == "\\":
                i += 1
                if i >= n:
                    raise fail("unexpected `,'")
                delim = script[i]
            i += 1
            body = []
            while i < n and script[i] != delim:
                if script[i] == "\\" and i + 1 < n:
                    body.append(script[i:i + 2] if script[i + 1] != delim else delim)
                    i += 2
                    continue
                body.append(script[i])
                i += 1
            if i >= n:
                raise fail("unterminated address regex")
            i += 1
            flags = 0
            if i < n and script[i] == "I":
                flags = re.IGNORECASE
                i += 1
            try:
                return compile_python(posix_regex("".join(body), extended), flags)
            except RegexRefused as exc:
                raise fail(str(exc)) from None
            except (re.error, RegexError):
                raise fail("Invalid regular expression") from None
        return None

    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        addr1 = address()
        addr2 = None
        if addr1 is not None and i < n and script[i] == ",":
            i += 1
            addr2 = address()
            if addr2 is None:
                raise fail("unexpected `,'")
        while i < n and script[i] == " ":
            i += 1
        negate = False
        if i < n and script[i] == "!":
            negate = True
            i += 1
        if i >= n:
            raise fail("missing command")
        cmd = script[i]
        i += 1
        command = _SedCommand(addr1, addr2, negate, cmd)
        if cmd == "s":
            if i >= n:
                raise fail("unterminated `s' command")
            delim = script[i]
            i += 1
            pattern = delimited(delim)
            replacement = delimited(delim)
            flags = 0
            while i < n and script[i] not in ";\n}":
                f = script[i]
                if f == "g":
                    command.global_ = True
                elif f == "p":
                    command.print_ = True
                elif f in "iI":
                    flags |= re.IGNORECASE
                elif f.isdecimal():
                    j = i
                    while j < n and script[j].isdecimal():
                        j += 1
                    digits = script[i:j].lstrip("0") or "0"
                    command.nth = max(1, int(digits) if len(digits) <= 18 else 10**18)
                    i = j
                    continue
                elif f in " \t":
                    pass
                else:
                    raise fail("unknown option to `s'")
                i += 1
            try:
                command.regex = compile_python(posix_regex(pattern, extended), flags)
            except RegexRefused as exc:
                raise fail(str(exc)) from None
            except (re.error, RegexError):
                raise fail("Invalid regular expression") from None
            command.replacement = replacement
        elif cmd in "pdqQ=":
            pass
        elif cmd in "aic":
            while i < n and script[i] in " \\":
                i += 1
            end = script.find("\n", i)
            end = n if end < 0 else end
            command.text = script[i:end]
            i = end
        elif cmd in "{}":
            raise fail("blocks { } are not supported by this sed")
        else:
            raise fail(f"unknown command: `{cmd}'")
        commands.append(command)
    return commands


def _sed_replace(match: Found, replacement: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            nxt = replacement[i + 1]
            if nxt.isdecimal():
                out.append(match.group(int(nxt)) or "" if int(nxt) <= (match.re.groups or 0) else "")
            elif nxt == "n":
                out.append("\n")
            elif nxt == "t":
                out.append("\t")
            else:
                out.append(nxt)
            i += 2
        elif c == "&":
            out.append(match.group(0))
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _sed_matches(addr: object, lineno: int, line: str, last: bool) -> bool:
    if isinstance(addr, int):
        return lineno == addr
    if addr == "$":
        return last
    if isinstance(addr, (re.Pattern, automaton.Pattern)):
        return bool(addr.search(line))
    return True


def _sed_selects(cmd: _SedCommand, lineno: int, line: str, last: bool) -> bool:
    if cmd.addr1 is None:
        hit = True
    elif cmd.addr2 is None:
        hit = _sed_matches(cmd.addr1, lineno, line, last)
    elif cmd.active:
        if isinstance(cmd.addr2, int):
            hit = True
            if lineno >= cmd.addr2:
                cmd.active = False
        else:
            hit = True
            if _sed_matches(cmd.addr2, lineno, line, last):
                cmd.active = False
    elif _sed_matches(cmd.addr1, lineno, line, last):
        hit = True
        if isinstance(cmd.addr2, int):
            cmd.active = cmd.addr2 > lineno
        else:
            cmd.active = not (cmd.addr2 == "$" and last)
    else:
        hit = False
    return hit != cmd.negate


def run_sed(commands: list[_SedCommand], lines: list[str], quiet: bool) -> list[str]:
    out: list[str] = []
    for index, line in enumerate(lines):
        lineno = index + 1
        last = index == len(lines) - 1
        deleted = False
        stop = False
        for cmd in commands:
            if not _sed_selects(cmd, lineno, line, last):
                continue
            if cmd.cmd == "s" and cmd.regex is not None:
                count = 0
                replaced = False

                def substitute(m: Found, c: _SedCommand = cmd) -> str:
                    nonlocal count, replaced
                    count += 1
                    if count == c.nth or (c.global_ and count >= c.nth):
                        replaced = True
                        return _sed_replace(m, c.replacement)
                    return m.group(0)

                line = substitute_all(cmd.regex, substitute, line)
                if replaced and cmd.print_:
                    out.append(line)
            elif cmd.cmd == "p":
                out.append(line)
            elif cmd.cmd == "d":
                deleted = True
                break
            elif cmd.cmd == "=":
                out.append(str(lineno))
            elif cmd.cmd == "i":
                out.append(cmd.text)
            elif cmd.cmd == "c":
                out.append(cmd.text)
                deleted = True
                break
            elif cmd.cmd == "q":
                stop = True
                break
            elif cmd.cmd == "Q":
                return out
        if not deleted and not quiet:
            out.append(line)
        for cmd in commands:
            if cmd.cmd == "a" and not deleted and _sed_selects_again(cmd, lineno, line, last):
                out.append(cmd.text)
        if stop:
            break
    return out


def _sed_selects_again(cmd: _SedCommand, lineno: int, line: str, last: bool) -> bool:
    """``a`` appends after the line when its (single) address matched."""
    if cmd.addr1 is None:
        return True
    return _sed_matches(cmd.addr1, lineno, line, last) != cmd.negate


class Sed(CoreutilsErrors, Intermixed):
    name = "sed"
    summary = "stream editor: s///[gpI], p, d, q, =, a/i/c; addresses N, $, /re/, ranges; -n -E -i -e"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--quiet", "--silent", action="store_true", help="suppress automatic printing of pattern space")
        parser.add_argument("-e", "--expression", action="append", metavar="script", help="add the script to the commands to be executed")
        parser.add_argument("-E", "-r", "--regexp-extended", action="store_true", help="use extended regular expressions")
        parser.add_argument("-i", "--in-place", nargs="?", const="", metavar="SUFFIX", help="edit files in place")
        parser.add_argument("-s", "--separate", action="store_true", help="consider files as separate")
        parser.add_argument("operands", nargs="*", metavar="script [input-file]", help="the script (without -e), then files")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        operands = list(args.operands)
        scripts = args.expression
        if scripts is None:
            if not operands:
                raise ctx.fail("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...", 1)
            scripts = [operands.pop(0)]
        commands: list[_SedCommand] = []
        try:
            for number, script in enumerate(scripts, 1):
                commands += _sed_parse(script, args.regexp_extended, number)
        except SedError as exc:
            raise ctx.fail(str(exc), 1) from None
        status = 0
        if args.in_place is not None:
            if not operands:
                raise ctx.fail("sed: no input files", 1)
            for path in operands:
                try:
                    text = ctx.fs.read(path)
                    for cmd in commands:
                        cmd.active = False
                    ctx.fs.write(path, join_lines(run_sed(commands, split_lines(text), args.quiet)))
                except FsError as exc:
                    ctx.err(f"sed: can't read {path}: {exc.strerror}\n" if exc.errno == 2
                            else f"sed: couldn't edit {path}: not a regular file\n")
                    status = 4
            return status
        lines: list[str] = []
        for path in operands or ["-"]:
            try:
                lines += split_lines(read_input(ctx, path))
            except FsError as exc:
                if exc.strerror == "Is a directory":
                    ctx.err(f"sed: couldn't edit {path}: not a regular file\n")
                else:
                    ctx.err(f"sed: can't read {path}: {exc.strerror}\n")
                status = 2
        ctx.out(join_lines(run_sed(commands, lines, args.quiet)))
        return status
