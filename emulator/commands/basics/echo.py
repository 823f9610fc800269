"""echo and printf, with bash's escapes and printf's conversions."""

from __future__ import annotations

import re

from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.formats import oversized_field
from emulator.commands.kit.spec import Flag
from emulator.limits import OUTPUT_LIMIT

SECTION = "Shell"


class Echo(RawCommand):
    name = "echo"
    reads_only = True
    builtin = True
    summary = "print arguments (-n: no newline, -e: interpret backslash escapes)"
    section = SECTION
    synopsis = "[-neE] [STRING]..."
    flags = (
        Flag("-n", "", "", "do not output the trailing newline"),
        Flag("-e", "", "", "interpret backslash escapes (\\n, \\t, \\0NNN, \\xHH, \\c...)"),
        Flag("-E", "", "", "do not interpret backslash escapes (the default)"),
    )
    #: The letters a leading option word may combine (``-ne``), from the table above.
    _LETTERS = frozenset(flag.short[1] for flag in flags)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        newline, escapes = True, False
        at = 0
        while at < len(words) and len(words[at]) > 1 and words[at][0] == "-" and set(words[at][1:]) <= self._LETTERS:
            for flag in words[at][1:]:
                if flag == "n":
                    newline = False
                else:
                    escapes = flag == "e"
            at += 1
        words = words[at:]
        text = " ".join(words)
        if escapes:
            text, stop = unescape(text)
            if stop:
                newline = False
        ctx.out(text + ("\n" if newline else ""))
        return 0



def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes of ``echo -e`` and ``printf``; the flag is True after ``\\c``."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
              "e": "\x1b", "E": "\x1b"}
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "c":
            return "".join(out), True
        elif nxt == "0" or nxt in "1234567":
            start = i + 2 if nxt == "0" else i + 1
            j = start
            while j < len(text) and j < start + 3 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[start:j] or "0", 8) & 0xFF))
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(text) and j < i + 4 and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(text[i + 2:j], 16)) if j > i + 2 else "\\x")
            i = j
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out), False



class Printf(RawCommand):
    name = "printf"
    reads_only = True
    builtin = True
    summary = "format and print data (%s %d %f %x %c %b %q, widths and precision)"
    section = SECTION
    synopsis = "FORMAT [ARGUMENT]..."

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if words and words[0] == "--":
            words = words[1:]
        if not words:
            raise ctx.fail("bash: printf: usage: printf [-v var] format [arguments]", 2)
        fmt, values = words[0], words[1:]
        status = 0
        out: list[str] = []
        size = first = 0
        # The format is used again while arguments are left, as bash does; each pass uses at least one,
        # and the passes stop once the output is past the limit (ctx.out keeps what fits and says so).
        try:
            pieces = _pieces(fmt)
            while size <= OUTPUT_LIMIT:
                text, used, stop, bad = _printf_once(pieces, values, first)
                out.append(text)
                size += len(text)
                for message in bad:
                    ctx.err(f"bash: printf: {message}\n")
                    if not message.startswith("warning: "):
                        status = 1
                first += used
                if stop or first >= len(values) or used == 0:
                    break
        except _Oversized as stop:
            ctx.out("".join(out) + stop.text)
            raise ctx.fail(stop.message, 1) from None
        ctx.out("".join(out))
        return status



def _number(word: str, bad: list[str], integer: bool) -> float | int:
    """A numeric argument: a ``'c`` character constant, an integer (see :func:`_integer`) or a float."""
    text = word.strip()
    if len(text) >= 2 and text[0] in "'\"":
        return ord(text[1])
    if integer:
        return _integer(word, bad, unsigned=False)
    try:
        return float(text or "0")
    except ValueError:
        bad.append(f"{word}: invalid number")
        match = re.match(r"\s*[-+]?\d+", text)
        return int(match.group()) if match else 0


_C_INTEGER = re.compile(r"\s*([-+]?)(0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)?")


def _integer(word: str, bad: list[str], unsigned: bool) -> int:
    """An integer argument as C's ``strtoimax``/``strtoumax`` read it (base 0), with bash's complaints in ``bad``.

    Trailing text is an invalid number (the digits before it count); a value past 64 bits is clamped
    with a warning, and a negative one for ``%u``, ``%o``, ``%x`` and ``%X`` wraps to 64 bits.
    """
    text = word.strip()
    if len(text) >= 2 and text[0] in "'\"":
        return ord(text[1])
    match = _C_INTEGER.match(word)
    assert match is not None  # every group is optional
    sign, digits = match.group(1), match.group(2) or ""
    magnitude = 0
    if digits[:2].lower() == "0x":
        magnitude = int(digits[2:] or "0", 16)
    elif digits:
        magnitude = int(digits, 8 if digits.startswith("0") else 10)
    if match.end() < len(word) or (digits.lower() == "0x"):
        reason = ("invalid hex number" if text[:2].lower() == "0x" else
                  "invalid octal number" if text[:1] == "0" and text[1:2].isdigit() else "invalid number")
        bad.append(f"{word}: {reason}")
        if digits.lower() == "0x":
            return 0
    value = -magnitude if sign == "-" else magnitude
    low, high = (-(2 ** 64) + 1, 2 ** 64 - 1) if unsigned else (-(2 ** 63), 2 ** 63 - 1)
    if not low <= value <= high:
        bad.append(f"warning: {word}: Numerical result out of range")
        return 2 ** 64 - 1 if unsigned else (high if value > 0 else low)
    return value % 2 ** 64 if unsigned else value


#: A format read once: per directive, the text before it (unescaped), whether a ``\\c`` stopped that text,
#: and the directive's flags, width, precision and conversion (None after the last directive).
Pieces = list[tuple[str, bool, tuple[str, str | None, str | None, str] | None]]


class _Oversized(Exception):  # noqa: N818 - a signal carrying the pass's text so far, like StopIteration
    """A directive's width or precision is past the limit: ``text`` is what the pass made before it."""

    def __init__(self, text: str, message: str) -> None:
        super().__init__(message)
        self.text, self.message = text, message


def _pieces(fmt: str) -> Pieces:
    """The format's directives and the text between them, read once for every pass over the arguments."""
    pieces: Pieces = []
    pos = 0
    for match in _FORMAT.finditer(fmt):
        literal, stop = unescape(fmt[pos:match.start()])
        pieces.append((literal, stop, match.groups()))  # type: ignore[arg-type]
        if stop:
            return pieces
        pos = match.end()
    literal, stop = unescape(fmt[pos:])
    pieces.append((literal, stop, None))
    return pieces


def _printf_once(pieces: Pieces, values: list[str], first: int) -> tuple[str, int, bool, list[str]]:
    """One pass of the format over ``values[first:]``: (text, values used, stopped by \\c, invalid numbers)."""
    out: list[str] = []
    used = 0
    bad: list[str] = []

    def take() -> str:
        nonlocal used
        value = values[first + used] if first + used < len(values) else ""
        used += 1
        return value

    for literal, stop, directive in pieces:
        out.append(literal)
        if stop:
            return "".join(out), used, True, bad
        if directive is None:
            break
        flags, width, precision, conv = directive
        if conv == "%":
            out.append("%")
            continue
        if width or precision:
            if width == "*":
                width = str(int(_number(take(), bad, True)))
            if precision == "*":
                precision = str(int(_number(take(), bad, True)))
            oversized = oversized_field("bash: printf", width, precision)
            if oversized:
                raise _Oversized("".join(out), oversized)
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        arg = take()
        if conv in "diouxX":
            unsigned = conv in "ouxX"
            value = int(_number(arg, bad, True)) if not unsigned else _integer(arg, bad, unsigned=True)
            out.append((spec + ("d" if conv == "u" else conv)) % value)
        elif conv in "eEfgG":
            out.append((spec + conv) % float(_number(arg, bad, False)))
        elif conv == "c":
            out.append((spec + "s") % arg[:1])
        elif conv == "b":
            text, stop = unescape(arg)
            out.append((spec + "s") % text)
            if stop:
                return "".join(out), used, True, bad
        elif conv == "q":
            out.append((spec + "s") % _bash_quote(arg))
        else:
            out.append((spec + "s") % arg)
    return "".join(out), used, False, bad



def _bash_quote(text: str) -> str:
    """``printf %q``: bash's backslash quoting (``$'...'`` for control characters)."""
    if not text:
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        escaped = text.encode("unicode_escape").decode("ascii").replace("'", "\\'")
        return f"$'{escaped}'"
    return "".join("\\" + c if c in " \t\n'\"\\$`!*?[](){}<>|&;#~^," and not (c == "~" and i) else c
                   for i, c in enumerate(text))


_FORMAT = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcsb%q])")
