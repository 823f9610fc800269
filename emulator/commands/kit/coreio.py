"""The coreutils' shared input and error handling: reading files or stdin, splitting lines, GNU's error wording."""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable

from emulator.commands.kit.command import Context, ParsedCommand

SECTION = "Files and text"

#: Terminal width used for column layouts.
COLUMNS = 80


def read_input(ctx: Context, path: str) -> str:
    """The text of an operand: ``-`` is stdin, anything else a file (raises FsError)."""
    if path == "-":
        return ctx.stdin
    return ctx.fs.read(path)


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
    """A command whose options may follow its operands (``grep -n x file -i``), as GNU tools allow."""

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return self.parser().parse_intermixed_args(self._split_attached(list(argv)))

    def _split_attached(self, argv: list[str]) -> list[str]:
        """``-d=`` means the value ``=`` to getopt, not an empty value as argparse would read it."""
        takes_value = {s for a in self.parser()._actions if a.nargs != 0 for s in a.option_strings if len(s) == 2}
        out: list[str] = []
        for i, word in enumerate(argv):
            if word == "--":
                return out + argv[i:]
            if len(word) > 2 and word[:2] in takes_value and word[2] == "=":
                out += [word[:2], word[2:]]
            else:
                out.append(word)
        return out


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
