"""Split an input line into words and operators, keeping track of quoting.

A word is a list of parts (literal text, a variable, a command substitution,
a tilde) each marked quoted or not, so that expansion can decide later what
is field-split and what is globbed, exactly as bash does.

One concept: words, quotes, ``$``-forms and here-document bodies are read by
one scanner with one cursor over the input (a ``$(...)`` inside double quotes,
a here-document's body after the line that opens it); splitting it would
spread that cursor's state across modules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.errors import EmulatorError
from emulator.limits import NESTING_LIMIT, limit_reached


class ShellSyntaxError(EmulatorError):
    """A line the shell cannot parse; the message is bash's wording without the ``bash: `` prefix."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def too_deep() -> ShellSyntaxError:
    """The error for nesting past :data:`~emulator.limits.NESTING_LIMIT` (the lexer's and the parser's)."""
    return ShellSyntaxError(limit_reached(f"syntax error: nesting deeper than {NESTING_LIMIT} levels"))


@dataclass(frozen=True)
class Lit:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Var:
    """``$NAME``, ``${NAME}``, ``${NAME:-default}``, ``${#NAME}``, ``${NAME%.log}``, ``$?``."""

    name: str
    quoted: bool
    #: "", "#len", a default (":-", ":=", ":+", ":?" and the forms without ":"), a pattern removal
    #: ("#", "##", "%", "%%"), a replacement ("/", "//"), a substring (":") or a case change ("^^", ",,").
    op: str = ""
    arg: str = ""


@dataclass(frozen=True)
class Sub:
    """``$(...)`` or backticks: the source text of the inner line."""

    source: str
    quoted: bool


@dataclass(frozen=True)
class Arith:
    """``$((...))``: an integer expression."""

    source: str
    quoted: bool


@dataclass(frozen=True)
class Tilde:
    """A leading ``~`` or ``~user``."""

    user: str


Part = Lit | Var | Sub | Arith | Tilde


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)
    raw: str = ""

    def literal(self) -> str | None:
        """The word's text if it is made of literal parts only, else None."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts)  # type: ignore[union-attr]
        return None

    def is_plain(self) -> bool:
        """Unquoted literal text only (reserved words and assignments must be plain)."""
        return all(isinstance(p, Lit) and not p.quoted for p in self.parts)


@dataclass
class Op:
    """An operator: ``|``, ``||``, ``&&``, ``;``, ``&``, ``(``, ``)``, newline, or a redirection.

    Redirections carry the file descriptor written before them (``2>``).
    """

    kind: str
    fd: int | None = None
    #: For ``<<`` and ``<<-``: the here-document's lines, whether to expand them
    #: (an unquoted delimiter), and whether the input ended before the delimiter.
    heredoc: str | None = None
    expand: bool = True
    unterminated: bool = False
    #: For ``((``: the arithmetic expression up to the matching ``))``.
    source: str = ""


Token = Word | Op

#: Control operators, longest first.
_CONTROL = ("&&", "||", ";;", "|&", "|", "&", ";", "(", ")")
#: Redirection operators, longest first.
_REDIRECT = (">>", ">&", ">|", "&>>", "&>", "<&", "<<<", "<<-", "<<", "<>", "<", ">")
_SPECIAL_VARS = "?$#!@*-0123456789"
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME_CHARS = _NAME_START + "0123456789"
#: The characters :func:`_find_closing` stops at, per kind of bracket; it skips the rest in one step.
_BRACKETS = {"(": (")", re.compile(r"[\\'\"()]")), "{": ("}", re.compile(r"[\\'\"{}]"))}
#: A backslash or the end of a double-quoted string.
_QUOTE_END = re.compile(r'[\\"]')
#: A run of characters a word takes as they are, outside quotes and inside double quotes.
_PLAIN = re.compile(r"[^ \t\r\n;|&()<>\\'\"$`]+")
_PLAIN_QUOTED = re.compile(r'[^"\\$`]+')


def _find_closing(text: str, i: int, open_: str) -> int:
    """Index of the bracket closing an ``open_`` just before ``i``, skipping quotes (linear in the text)."""
    depth = 1
    close, special = _BRACKETS[open_]
    while (found := special.search(text, i)) is not None:
        i = found.start()
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if c == '"':
            i = _after_quote(text, i + 1)
            continue
        if c == open_:
            depth += 1
            if depth > NESTING_LIMIT:
                raise too_deep()
        else:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError(f"unexpected EOF while looking for matching `{close}'")


def _after_quote(text: str, i: int) -> int:
    """The index after the ``"`` that closes a double-quoted string whose text starts at ``i``."""
    while (found := _QUOTE_END.search(text, i)) is not None:
        i = found.start()
        if text[i] == '"':
            return i + 1
        i += 2
    return len(text) + 1


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.tokens: list[Token] = []
        #: Tokens up to here have had their here-documents read.
        self._heredocs_read = 0
        #: Each ``(``'s matching ``)``, counting parentheses only (built on the first ``((``).
        self._parens: dict[int, int] | None = None

    def run(self) -> list[Token]:
        text = self.text
        #: Subshell ``(`` tokens not yet closed: past the nesting limit the line is refused at once.
        opened = 0
        while self.i < len(text):
            c = text[self.i]
            if c in " \t\r":
                self.i += 1
            elif c == "\n":
                self.tokens.append(Op("\n"))
                self.i += 1
                self._heredocs()
            elif c == "#":
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif (text.startswith("((", self.i) and self._arithmetic_command()) or self._operator(None):
                kind = getattr(self.tokens[-1], "kind", None)
                opened += (kind == "(") - (kind == ")")
                if opened > NESTING_LIMIT:
                    raise too_deep()
            else:
                self._word()
        self._heredocs()
        return self.tokens

    def _arithmetic_command(self) -> bool:
        """``(( expr ))`` as one token, when the ``)`` matching its second ``(`` is followed by ``)`` on the line."""
        text = self.text
        if self._parens is None:
            self._parens, opened = {}, []
            for found in re.finditer(r"[()]", text):
                if found.group() == "(":
                    opened.append(found.start())
                elif opened:
                    self._parens[opened.pop()] = found.start()
        j = self._parens.get(self.i + 1)
        if j is None or not text.startswith("))", j) or text.find("\n", self.i, j) >= 0:
            return False
        self.tokens.append(Op("((", source=text[self.i + 2:j]))
        self.i = j + 2
        return True

    def _heredocs(self) -> None:
        """Read the bodies of the here-documents opened on the line just ended."""
        start, self._heredocs_read = self._heredocs_read, len(self.tokens)
        for index in range(start, len(self.tokens)):
            tok = self.tokens[index]
            if not (isinstance(tok, Op) and tok.kind in ("<<", "<<-") and tok.heredoc is None):
                continue
            target = self.tokens[index + 1] if index + 1 < len(self.tokens) else None
            if not isinstance(target, Word):
                continue
            delimiter = "".join(p.text for p in target.parts if isinstance(p, Lit)) or target.raw
            tok.expand = not any(isinstance(p, Lit) and p.quoted for p in target.parts)
            body: list[str] = []
            text = self.text
            while True:
                if self.i >= len(text):
                    tok.unterminated = True
                    break
                end = text.find("\n", self.i)
                end = len(text) if end < 0 else end
                line = text[self.i:end]
                self.i = end + 1
                if tok.kind == "<<-":
                    line = line.lstrip("\t")
                if line == delimiter:
                    break
                body.append(line)
            tok.heredoc = "".join(line + "\n" for line in body)

    def _operator(self, fd: int | None) -> bool:
        text, i = self.text, self.i
        for op in _REDIRECT:
            if text.startswith(op, i):
                if op in ("&>", "&>>") and fd is not None:
                    continue
                self.tokens.append(Op(op, fd))
                self.i += len(op)
                return True
        if fd is None:
            for op in _CONTROL:
                if text.startswith(op, i):
                    self.tokens.append(Op(op))
                    self.i += len(op)
                    return True
        return False

    def _word(self) -> None:
        text = self.text
        start = self.i
        parts: list[Part] = []
        buf: list[str] = []

        def flush(quoted: bool = False) -> None:
            if buf:
                parts.append(Lit("".join(buf), quoted))
                buf.clear()

        if text[self.i] == "~":
            j = self.i + 1
            while j < len(text) and text[j] in _NAME_CHARS + "-.":
                j += 1
            if j == len(text) or text[j] in "/ \t\n;|&<>)":
                parts.append(Tilde(text[self.i + 1:j]))
                self.i = j
        while self.i < len(text):
            c = text[self.i]
            if c in " \t\r\n;|&()":
                break
            if c in "<>":
                word_so_far = "".join(buf)
                if not parts and word_so_far.isdecimal() and len(word_so_far) < 4:
                    buf.clear()
                    self._operator(int(word_so_far))
                    return
                break
            if c == "\\":
                if self.i + 1 < len(text):
                    if text[self.i + 1] != "\n":
                        flush()
                        parts.append(Lit(text[self.i + 1], True))
                    self.i += 2
                else:
                    buf.append("\\")
                    self.i += 1
            elif c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unexpected EOF while looking for matching `''")
                flush()
                parts.append(Lit(text[self.i + 1:end], True))
                self.i = end + 1
            elif c == '"':
                flush()
                self.i += 1
                self._double_quoted(parts)
            elif c == "$":
                flush()
                self._dollar(parts, quoted=False)
            elif c == "`":
                flush()
                end = text.find("`", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unexpected EOF while looking for matching ``'")
                parts.append(Sub(text[self.i + 1:end], False))
                self.i = end + 1
            else:
                run = _PLAIN.match(text, self.i)
                assert run is not None
                buf.append(run.group())
                self.i = run.end()
        flush()
        self.tokens.append(Word(parts, text[start:self.i]))

    def _double_quoted(self, parts: list[Part]) -> None:
        text = self.text
        buf: list[str] = []
        quoted_empty = True
        while True:
            if self.i >= len(text):
                raise ShellSyntaxError("unexpected EOF while looking for matching `\"'")
            c = text[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\" and self.i + 1 < len(text) and text[self.i + 1] in '$`"\\\n':
                if text[self.i + 1] != "\n":
                    buf.append(text[self.i + 1])
                self.i += 2
            elif c == "$":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                before = len(parts)
                self._dollar(parts, quoted=True)
                quoted_empty = quoted_empty and len(parts) == before
            elif c == "`":
                end = text.find("`", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unexpected EOF while looking for matching ``'")
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(Sub(text[self.i + 1:end], True))
                quoted_empty = False
                self.i = end + 1
            else:
                run = _PLAIN_QUOTED.match(text, self.i)
                end = run.end() if run is not None else self.i + 1
                buf.append(text[self.i:end])
                self.i = end
        if buf or quoted_empty:
            parts.append(Lit("".join(buf), True))

    def _dollar(self, parts: list[Part], quoted: bool) -> None:
        text = self.text
        i = self.i + 1
        nxt = text[i] if i < len(text) else ""
        if text.startswith("((", i):
            end = _find_closing(text, i + 2, "(")
            if end + 1 >= len(text) or text[end + 1] != ")":
                raise ShellSyntaxError("unexpected EOF while looking for matching `)'")
            parts.append(Arith(text[i + 2:end], quoted))
            self.i = end + 2
        elif nxt == "(":
            end = _find_closing(text, i + 1, "(")
            parts.append(Sub(text[i + 1:end], quoted))
            self.i = end + 1
        elif nxt == "{":
            end = _find_closing(text, i + 1, "{")
            parts.append(_brace_var(text[i + 1:end], quoted))
            self.i = end + 1
        elif nxt and nxt in _SPECIAL_VARS:
            parts.append(Var(nxt, quoted))
            self.i = i + 1
        elif nxt and nxt in _NAME_START:
            j = i
            while j < len(text) and text[j] in _NAME_CHARS:
                j += 1
            parts.append(Var(text[i:j], quoted))
            self.i = j
        elif nxt == "'" and not quoted:
            parts.append(Lit(*_ansi_c(text, i + 1, self)))
        else:
            parts.append(Lit("$", quoted))
            self.i = i


def _ansi_c(text: str, i: int, lexer: _Lexer) -> tuple[str, bool]:
    """``$'...'`` with the common backslash escapes."""
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b", "0": "\0"}
    out: list[str] = []
    while i < len(text) and text[i] != "'":
        if text[i] == "\\" and i + 1 < len(text):
            out.append(escapes.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
        else:
            out.append(text[i])
            i += 1
    if i >= len(text):
        raise ShellSyntaxError("unexpected EOF while looking for matching `''")
    lexer.i = i + 1
    return "".join(out), True


def _brace_var(body: str, quoted: bool) -> Var:
    if body.startswith("#") and len(body) > 1:
        return Var(body[1:], quoted, "#len")
    name_end = 0
    if body[:1] and body[0] in _SPECIAL_VARS:
        name_end = 1
    else:
        while name_end < len(body) and body[name_end] in _NAME_CHARS:
            name_end += 1
    name, rest = body[:name_end], body[name_end:]
    if not name:
        raise ShellSyntaxError(f"${{{body}}}: bad substitution")
    for op in (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/", "^^", ",,", "^", ",", ":"):
        if rest.startswith(op):
            return Var(name, quoted, op, rest[len(op):])
    if rest:
        raise ShellSyntaxError(f"${{{body}}}: bad substitution")
    return Var(name, quoted)


def tokenize(text: str) -> list[Token]:
    """Words and operators of one input line (raises :class:`ShellSyntaxError`)."""
    return _Lexer(text).run()
