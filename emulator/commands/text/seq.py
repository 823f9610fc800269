"""seq: a sequence of numbers, formatted as GNU seq formats them."""

from __future__ import annotations

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.coreio import SECTION


class Seq(RawCommand):
    name = "seq"
    summary = "print a sequence of numbers (seq LAST, seq FIRST LAST, seq FIRST INCREMENT LAST)"
    section = SECTION

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        separator, width = "\n", False
        while words and words[0] in ("-s", "-w") or (words and words[0].startswith("-s") and len(words[0]) > 2):
            flag = words.pop(0)
            if flag == "-w":
                width = True
            elif flag == "-s":
                if not words:
                    raise ctx.fail("seq: option requires an argument -- 's'\nTry 'seq --help' for more information.", 1)
                separator = words.pop(0)
            else:
                separator = flag[2:]
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
        values = []
        value = first
        while (step > 0 and value <= last + 1e-9) or (step < 0 and value >= last - 1e-9):
            values.append(f"{value:.{decimals}f}")
            if len(values) >= 100_000:
                break
            value = first + step * len(values)
        if width and values:
            size = max(len(v) for v in values)
            values = [v.zfill(size) for v in values]
        ctx.out(separator.join(values) + ("\n" if values else ""))
        return 0
