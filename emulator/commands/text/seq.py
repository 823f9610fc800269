"""seq: a sequence of numbers, formatted as GNU seq formats them."""

from __future__ import annotations

import re

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION, getopt_long
from emulator.commands.kit.formats import oversized_field
from emulator.commands.kit.spec import Flag
from emulator.limits import OUTPUT_LIMIT, SEQ_LIMIT, limit_reached

#: One printf directive for a double, split into what Python's ``%`` accepts and what it does not:
#: flags (``'`` groups thousands, a no-op in the C locale), width, precision, ``L``, conversion.
_DIRECTIVE = re.compile(r"%([-+#0 ']*)(\d*)(\.\d*)?(L?)(.?)")


def _is_negative_number(word: str) -> bool:
    """``-1`` and ``-.5`` are operands, not flags, as GNU seq reads them."""
    return len(word) > 1 and word[0] == "-" and (word[1] == "." or word[1].isdecimal())


class Seq(RawCommand):
    name = "seq"
    summary = "print a sequence of numbers (seq LAST, seq FIRST LAST, seq FIRST INCREMENT LAST)"
    section = SECTION
    usage_status = 1
    synopsis = "[OPTION]... LAST\n  or:  seq [OPTION]... FIRST LAST\n  or:  seq [OPTION]... FIRST INCREMENT LAST"
    flags = (
        Flag("-f", "--format", "FORMAT", "use printf style floating-point FORMAT"),
        Flag("-s", "--separator", "STRING", "use STRING to separate numbers (default: \\n)"),
        Flag("-w", "--equal-width", "", "equalize width by padding with leading zeroes"),
        Flag("", "--help", "", "display this help and exit"),
    )
    notes = ("FIRST and INCREMENT default to 1. FORMAT takes one %e, %f or %g directive (%a is not\n"
             "supported here). Numbers that start with '-' are operands, not options: seq -1 1.")

    def execute(self, ctx: Context) -> Outcome:
        given, words = getopt_long(self, ctx.argv[1:], permute=False, operand=_is_negative_number)
        options = dict(given)
        if "--help" in options:
            ctx.out(self.help_text())
            return 0
        separator = options.get("--separator", "\n")
        width = "--equal-width" in options
        fmt = options.get("--format")
        if fmt is not None and width:
            raise ctx.fail("seq: format string may not be specified when printing equal width strings\n"
                           "Try 'seq --help' for more information.", 1)
        if fmt is not None:
            fmt = _python_format(ctx, fmt)
        if not words:
            raise ctx.fail("seq: missing operand\nTry 'seq --help' for more information.", 1)
        if len(words) > 3:
            raise ctx.fail(f"seq: extra operand ‘{words[3]}’\nTry 'seq --help' for more information.", 1)
        numbers = []
        for word in words:
            try:
                numbers.append(float(word))
            except ValueError:
                raise ctx.fail(f"seq: invalid floating point argument: ‘{word}’\n"
                               "Try 'seq --help' for more information.", 1) from None
        first, step, last = 1.0, 1.0, numbers[-1]
        if len(numbers) >= 2:
            first = numbers[0]
        if len(numbers) == 3:
            step = numbers[1]
        if step == 0:
            raise ctx.fail(f"seq: invalid Zero increment value: ‘{words[1]}’\nTry 'seq --help' for more information.", 1)
        decimals = max((len(w.split(".")[1]) for w in words if "." in w and "e" not in w.lower()), default=0)
        oversized = oversized_field("seq", None, str(decimals))
        if oversized:
            raise ctx.fail(oversized, 1)
        values: list[str] = []
        value = first
        size = 0
        stopped = False
        while (step > 0 and value <= last + 1e-9) or (step < 0 and value >= last - 1e-9):
            if len(values) == SEQ_LIMIT:
                stopped = True
                break
            if size > OUTPUT_LIMIT:
                break  # ctx.out stops at the output limit and says so
            values.append(fmt % value if fmt is not None else f"{value:.{decimals}f}")
            size += len(values[-1]) + len(separator)
            value = first + step * len(values)
        if width and values:
            size = max(len(v) for v in values)
            values = [v.zfill(size) for v in values]
        ctx.out(separator.join(values) + ("\n" if values else ""))
        if stopped:
            ctx.err(limit_reached(f"seq: output stopped after {SEQ_LIMIT} lines") + "\n")
            return 1
        return 0


def _python_format(ctx: Context, fmt: str) -> str:
    """``-f FORMAT`` checked as GNU seq checks it (one %e, %f or %g directive), in Python's ``%`` syntax."""
    directives = [m for m in re.finditer(r"%%|%", fmt) if m.group() == "%"]
    if not directives:
        raise ctx.fail(f"seq: format ‘{fmt}’ has no % directive", 1)
    start = directives[0].start()
    m = _DIRECTIVE.match(fmt, start)
    if m is None or not m.group(5):
        raise ctx.fail(f"seq: format ‘{fmt}’ ends in %", 1)
    flags, width, precision, _, conversion = m.groups()
    oversized = oversized_field("seq", width, (precision or ".")[1:])
    if oversized:
        raise ctx.fail(oversized, 1)
    if conversion in "aA":
        raise ctx.fail(f"seq: format ‘{fmt}’: the %{conversion} directive is not supported here", 1)
    if conversion not in "efgEFG":
        raise ctx.fail(f"seq: format ‘{fmt}’ has unknown %{conversion} directive", 1)
    if "%" in fmt[m.end():].replace("%%", ""):
        raise ctx.fail(f"seq: format ‘{fmt}’ has too many % directives", 1)
    directive = "%" + flags.replace("'", "") + width + (precision or "") + conversion
    return fmt[:start] + directive + fmt[m.end():]
