"""The coreutils' shared input and error handling: reading files or stdin, splitting lines, GNU's error wording,
and GNU getopt_long reading a raw command's declared flag table."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable

from emulator.commands.kit.command import Context, ParsedCommand, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.errors import UsageError

SECTION = "Files and text"

#: Terminal width used for column layouts.
COLUMNS = 80


def read_input(ctx: Context, path: str) -> str:
    """The text of an operand: ``-`` is stdin, anything else a file (raises FsError)."""
    if path == "-":
        return ctx.stdin
    return ctx.fs.read(path, ctx.user)


def split_lines(text: str) -> list[str]:
    """Lines without their newlines; a final newline does not start an empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def join_lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def columns(names: list[str], width: int = COLUMNS) -> list[str]:
    """Names laid out in vertical columns as GNU ls does on a terminal."""
    if not names:
        return []
    best = [names]
    for cols in range(min(len(names), width // 3 + 1), 0, -1):
        rows = math.ceil(len(names) / cols)
        grid = [names[c * rows:(c + 1) * rows] for c in range(cols)]
        grid = [g for g in grid if g]
        widths = [max(len(n) for n in col) + 2 for col in grid]
        if sum(widths) - 2 <= width:
            best = grid
            break
    rows = max(len(col) for col in best)
    widths = [max(len(n) for n in col) + 2 for col in best]
    lines = []
    for r in range(rows):
        cells = [(col[r], w) for col, w in zip(best, widths) if r < len(col)]
        line = "".join(name.ljust(w) for name, w in cells[:-1]) + cells[-1][0]
        lines.append(line)
    return lines


class Intermixed(ParsedCommand):
    """A command whose options may follow its operands (``grep -n x file -i``), as GNU tools allow.

    Read as getopt_long reads them: an option that takes a value takes the next word whatever it is
    (``grep -e -pl``), and every word after ``--`` is an operand (``grep -- -pl FILE``).
    """

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        before, after = self._split_attached(list(argv))
        args = self.parser().parse_intermixed_args(before)
        if after:
            operands = [a for a in self.parser()._actions if not a.option_strings and a.nargs in ("*", "+")]
            if len(operands) != 1:
                return self.parser().parse_intermixed_args([*before, "--", *after])
            dest = operands[0].dest
            setattr(args, dest, [*(getattr(args, dest) or []), *after])
        return args

    def _split_attached(self, argv: list[str]) -> tuple[list[str], list[str]]:
        """The words before ``--`` with each option's value attached to it, and the operands after ``--``.

        ``-d=`` means the value ``=`` to getopt, not an empty value as argparse would read it.
        """
        valued = {s: next((o for o in a.option_strings if o.startswith("--")), s)
                  for a in self.parser()._actions if a.option_strings and a.nargs is None for s in a.option_strings}
        out: list[str] = []
        i = 0
        while i < len(argv):
            word = argv[i]
            if word == "--":
                return out, argv[i + 1:]
            if word in valued and i + 1 < len(argv):
                value = argv[i + 1]
                long = valued[word]
                out.append(f"{long}={value}" if long.startswith("--") else f"{word}{value}")
                i += 2
                continue
            if len(word) > 2 and word[:2] in valued and word[2] == "=":
                out += [word[:2], word[2:]]
            else:
                out.append(word)
            i += 1
        return out, []


def coreutils_error(name: str, message: str) -> str:
    """argparse's complaint reworded as coreutils prints it."""
    if message.startswith("unrecognized arguments:"):
        bad = message.split(":", 1)[1].strip().split(" ")[0]
        if not bad.startswith("-") or bad == "-":
            text = f"extra operand ‘{bad}’"
        elif bad.startswith("--"):
            text = f"unrecognized option '{bad}'"
        else:
            text = f"invalid option -- '{bad.lstrip('-')[:1]}'"
    elif "expected one argument" in message and len(message.split()) > 1:
        flag = message.split()[1].split("/")[0]
        text = f"option requires an argument -- '{flag.lstrip('-')[:1]}'"
    else:
        text = message
    return f"{name}: {text}\nTry '{name} --help' for more information."


class CoreutilsErrors(ParsedCommand):
    """Bad usage worded as GNU coreutils words it (``head: invalid option -- 'z'``)."""

    def usage_error(self, message: str) -> str:
        return coreutils_error(self.name, message)


def flag_named(flags: Iterable[Flag], word: str) -> Flag | None:
    """The declared flag spelled ``word`` (``-s``, ``--separator``, find's ``-name``), or None."""
    return next((flag for flag in flags if word in flag.strings()), None)


def getopt_long(command: RawCommand, words: list[str], *, permute: bool = True,
                operand: Callable[[str], bool] | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """Read ``words`` as GNU ``getopt_long`` reads them, against the command's declared :attr:`~RawCommand.flags`.

    Returns the flags given, in order, each as (its long spelling, else its short one; its value or ``""``),
    and the operands. Short flags cluster (``-wz``) and take their value attached or as the next word;
    long ones take ``--name=value`` or the next word, and may be shortened to a unique prefix;
    ``--`` ends the flags and ``-`` is an operand. With ``permute`` False the first operand ends the
    flags too (getopt's ``+``); ``operand`` says whether a word starting with ``-`` is an operand all
    the same (seq's negative numbers). A bad flag raises :class:`UsageError` in getopt's words,
    through :meth:`~emulator.commands.kit.command.Command.usage_error`.
    """
    def bad(message: str) -> UsageError:
        return UsageError(command.usage_error(message), command.usage_status)

    given: list[tuple[str, str]] = []
    operands: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            return given, operands + words[i:]
        if word == "-" or not word.startswith("-") or (operand is not None and operand(word)):
            if not permute:
                return given, operands + words[i - 1:]
            operands.append(word)
            continue
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            flag = _long_flag(command.flags, name, word, bad)
            if flag.value and not eq:
                if i >= len(words):
                    raise bad(f"option '{flag.long}' requires an argument")
                value = words[i]
                i += 1
            elif not flag.value and eq:
                raise bad(f"option '{flag.long}' doesn't allow an argument")
            given.append((flag.long, value))
            continue
        for j in range(1, len(word)):
            letter = word[j]
            short = flag_named(command.flags, "-" + letter)
            if short is None:
                raise bad(f"invalid option -- '{letter}'")
            if not short.value:
                given.append((short.long or short.short, ""))
                continue
            value = word[j + 1:]
            if not value:
                if i >= len(words):
                    raise bad(f"option requires an argument -- '{letter}'")
                value = words[i]
                i += 1
            given.append((short.long or short.short, value))
            break
    return given, operands


def long_matches(flags: Iterable[Flag], name: str) -> list[Flag]:
    """The flags a long option ``--name`` names: the one spelled so, else every one it is a prefix of."""
    longs = [flag for flag in flags if flag.long]
    return [flag for flag in longs if flag.long == name] or [flag for flag in longs if flag.long.startswith(name)]


def _long_flag(flags: Iterable[Flag], name: str, word: str, bad: Callable[[str], UsageError]) -> Flag:
    """The flag a long option names, exactly or by a unique prefix, as getopt_long finds it."""
    matches = long_matches(flags, name)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise bad(f"unrecognized option '{word}'")
    possibilities = " ".join(f"'{flag.long}'" for flag in matches)
    raise bad(f"option '{name}' is ambiguous; possibilities: {possibilities}")
