"""tr: characters translated, squeezed or deleted, with tr's sets (ranges, escapes, ``[:classes:]``)."""

from __future__ import annotations

import argparse

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed
from emulator.commands.kit.spec import ArgumentParser
from emulator.errors import CommandError

_TR_CLASSES = {"lower": "abcdefghijklmnopqrstuvwxyz", "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "digit": "0123456789",
               "space": " \t\n\r\f\v", "blank": " \t", "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
               "xdigit": "0123456789ABCDEFabcdef"}
_TR_CLASSES["alpha"] = _TR_CLASSES["upper"] + _TR_CLASSES["lower"]
_TR_CLASSES["alnum"] = _TR_CLASSES["digit"] + _TR_CLASSES["alpha"]


def tr_set(spec: str) -> str:
    """Expand a tr set: escapes, ranges a-z, classes [:upper:]."""
    chars: list[str] = []
    i = 0
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}
    while i < len(spec):
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            name = spec[i + 2:end] if end > 0 else ""
            if name in _TR_CLASSES:
                chars.extend(_TR_CLASSES[name])
                i = end + 2
                continue
        c = spec[i]
        octal = len(spec[i + 1:i + 4]) - len(spec[i + 1:i + 4].lstrip("01234567"))
        if c == "\\" and octal:
            # \NNN: the character with octal value NNN (1 to 3 digits), e.g. \0 for NUL.
            c = chr(int(spec[i + 1:i + 1 + octal], 8) & 0xFF)
            i += 1 + octal
        elif c == "\\" and i + 1 < len(spec):
            c = escapes.get(spec[i + 1], spec[i + 1])
            i += 2
        else:
            i += 1
        if i + 1 < len(spec) and spec[i] == "-":
            hi = spec[i + 1]
            if hi == "\\" and i + 2 < len(spec):
                hi = escapes.get(spec[i + 2], spec[i + 2])
                i += 1
            if ord(hi) < ord(c):
                raise CommandError(f"tr: range-endpoints of '{c}-{hi}' are in reverse collating sequence order", 1)
            chars.extend(chr(x) for x in range(ord(c), min(ord(hi), ord(c) + 65_536) + 1))
            i += 2
        else:
            chars.append(c)
    return "".join(chars)


class Tr(CoreutilsErrors, Intermixed):
    name = "tr"
    filters_lines = True
    reads_only = True
    summary = "translate, squeeze or delete characters (-d -s -c)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-d", "--delete", action="store_true", help="delete characters in SET1")
        parser.add_argument("-s", "--squeeze-repeats", action="store_true", help="squeeze repeats of characters in the last SET")
        parser.add_argument("-c", "-C", "--complement", action="store_true", help="use the complement of SET1")
        parser.add_argument("sets", nargs="*", metavar="SET", help="SET1 [SET2]")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        sets = args.sets
        need = 1 if args.delete and not args.squeeze_repeats or (args.squeeze_repeats and len(sets) == 1) else 2
        if not sets:
            raise ctx.fail("tr: missing operand\nTry 'tr --help' for more information.", 1)
        if len(sets) < need:
            raise ctx.fail(f"tr: missing operand after ‘{sets[-1]}’\nTwo strings must be given when translating.\n"
                           "Try 'tr --help' for more information.", 1)
        if len(sets) > 2 or (args.delete and not args.squeeze_repeats and len(sets) > 1):
            raise ctx.fail(f"tr: extra operand ‘{sets[-1]}’\nTry 'tr --help' for more information.", 1)
        set1 = tr_set(sets[0])
        text = ctx.stdin

        def in_set1(ch: str) -> bool:
            return (ch in set1) != args.complement

        if args.delete:
            text = "".join(ch for ch in text if not in_set1(ch))
            squeeze = tr_set(sets[1]) if len(sets) > 1 else ""
        elif len(sets) > 1:
            set2 = tr_set(sets[1])
            if not set2:
                raise ctx.fail("tr: when not truncating set1, string2 must be non-empty", 1)
            if args.complement:
                text = "".join(set2[-1] if in_set1(ch) else ch for ch in text)
            else:
                padded = set2 + set2[-1] * max(0, len(set1) - len(set2))
                table = {ord(a): b for a, b in zip(set1, padded)}
                text = text.translate(table)
            squeeze = set2
        else:
            squeeze = set1
        if args.squeeze_repeats:
            out: list[str] = []
            for ch in text:
                if out and out[-1] == ch and (ch in squeeze) != (args.complement and len(sets) == 1):
                    continue
                out.append(ch)
            text = "".join(out)
        ctx.out(text)
        return 0
