"""Parse tokens into a command tree: lists, and-or chains, pipelines, commands.

Supported: simple commands with ``NAME=value`` (and ``NAME+=value``) prefixes
and redirections (``>``, ``>>``, ``<``, ``2>``, ``2>&1``, ``&>``, ``>&2``,
here-documents ``<<`` and ``<<-``, here-strings ``<<<``), pipelines (``|``,
``|&``, a leading ``!``), ``&&``, ``||``, ``;``, newlines, ``( list )``,
``{ list; }``, ``(( expr ))``, ``for NAME in WORDS; do LIST; done``,
``while``/``until`` loops, ``if``/``elif``/``else``/``fi`` and ``case``/``esac``.

One concept: the tree's node types and the recursive-descent parser that builds
them are bash's grammar, one rule per method; the nodes are read together with
the rules that make them, so both stay in this one module.

Deviations from bash (also listed on the handbook page about the shell):

- ``&`` runs the command in the foreground; there is no job control.
- Pipeline stages run one after another (each stage's whole output is the
  next one's input), except that a streaming command piped into line
  filters (``grep``, ``cut``, ``tr``, ``cat``) streams chunk by chunk.
- Shell functions and ``select`` cannot be used (a clear error says so).
- Loops stop after 10,000 iterations, a line runs at most 50,000 commands, nesting stops at 64 levels,
  and output is capped; :mod:`emulator.limits` has every limit and what the terminal says at it.
- ``( list )`` runs in the same shell, but ``cd`` and variables inside it do
  not leak out (the state is restored afterwards), as with a real subshell.
- Brace expansion covers ``{a,b}`` and ``{1..8}`` (also zero-padded ``{01..16}``).
- Arithmetic ``$(( ))`` knows 64-bit integers (decimal, hex, octal), C's
  operators and ``?:``, but not assignment inside the expression.
- An expansion error (``${x:?}``, division by zero) ends the whole line, as
  in an interactive bash.
- Globbing matches ``*``, ``?`` and ``[...]`` against the virtual filesystem;
  dotfiles need an explicit leading dot, and a pattern without a match stays
  as typed (bash's default).
- ``exit`` on the login node prints ``logout`` and keeps the session open;
  after ``ssh`` it returns to the previous host.
- ``set`` options (``-e``, ``-u``, ``-x``, ``-o pipefail``) are accepted and
  change nothing.
- ``time`` reports simulated time; aliases expand in the first word of a
  simple command only (``ll``, ``la``, ``l`` and those defined with ``alias``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.limits import NESTING_LIMIT
from emulator.shell.lexer import Lit, Op, ShellSyntaxError, Tilde, Token, Word, tokenize, too_deep

RESERVED = {"if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac",
            "function", "{", "}", "!", "select", "time"}
_UNSUPPORTED = {"function": "shell functions", "select": "select loops"}
#: The reserved words that open a compound command: each nests one level (see :data:`~emulator.limits.NESTING_LIMIT`).
_COMPOUND = {"{", "for", "case", "while", "until", "if"}
_REDIRECTS = {">", ">>", ">|", ">&", "<&", "&>", "&>>", "<", "<<", "<<-", "<<<", "<>"}


@dataclass
class Redirect:
    op: str
    fd: int | None
    target: Word
    #: A here-document's text, whether to expand it, and whether its delimiter was missing.
    body: str | None = None
    expand: bool = True
    unterminated: bool = False


@dataclass
class Simple:
    #: ``NAME=value`` prefixes; ``NAME+`` for ``NAME+=value`` (append).
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Group:
    """``( list )`` (``subshell``) or ``{ list; }``."""

    body: Script
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    name: str
    words: list[Word] | None
    body: Script
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class While:
    cond: Script
    body: Script
    until: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class If:
    branches: list[tuple[Script, Script]]
    orelse: Script | None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Case:
    """``case WORD in PATTERN|PATTERN) LIST ;; ... esac``."""

    word: Word
    items: list[tuple[list[Word], Script]]
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class ArithCommand:
    """``(( expr ))``: status 0 when the expression is not zero."""

    source: str
    redirects: list[Redirect] = field(default_factory=list)


Command = Simple | Group | For | While | If | Case | ArithCommand


@dataclass
class Pipeline:
    commands: list[Command]
    negate: bool = False
    #: ``time`` before the pipeline: report its duration on stderr.
    timed: bool = False
    #: Per stage: whether its stderr joins the pipe too (``|&``).
    stderr_too: list[bool] = field(default_factory=list)


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)


@dataclass
class Script:
    items: list[AndOr] = field(default_factory=list)


def _is_name(text: str) -> bool:
    return bool(text) and (text[0].isalpha() or text[0] == "_") and all(c.isalnum() or c == "_" for c in text)


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        #: Compound commands being parsed inside one another (see :data:`~emulator.limits.NESTING_LIMIT`).
        self.depth = 0

    # -- token helpers ----------------------------------------------------------
    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self) -> Token | None:
        tok = self.peek()
        self.i += 1
        return tok

    def peek_word(self) -> str | None:
        """The text of the next token if it is a plain word (for reserved words)."""
        tok = self.peek()
        if isinstance(tok, Word) and tok.is_plain():
            return tok.literal()
        return None

    def error(self, tok: Token | None = None) -> ShellSyntaxError:
        tok = tok if tok is not None else self.peek()
        if tok is None:
            return ShellSyntaxError("syntax error: unexpected end of file")
        if isinstance(tok, Op):
            text = "newline" if tok.kind == "\n" else tok.kind
        else:
            text = tok.raw
        return ShellSyntaxError(f"syntax error near unexpected token `{text}'")

    def skip_newlines(self) -> None:
        while isinstance(self.peek(), Op) and self.peek().kind == "\n":  # type: ignore[union-attr]
            self.i += 1

    def expect_word(self, word: str) -> None:
        self.skip_newlines()
        if self.peek_word() != word:
            raise self.error()
        self.i += 1

    # -- grammar ----------------------------------------------------------------
    def script(self, stop: set[str]) -> Script:
        """A list of and-or chains, up to a reserved word in ``stop`` (or ``)``)."""
        script = Script()
        while True:
            self.skip_newlines()
            tok = self.peek()
            if tok is None:
                break
            if isinstance(tok, Op) and (tok.kind == ")" and ")" in stop or tok.kind == ";;" and ";;" in stop):
                break
            if self.peek_word() in stop:
                break
            script.items.append(self.and_or(stop))
            tok = self.peek()
            if isinstance(tok, Op) and tok.kind in (";", "&", "\n"):
                self.i += 1
            elif tok is None or isinstance(tok, Op) and (tok.kind == ")" and ")" in stop or tok.kind == ";;"
                                                     and ";;" in stop) or self.peek_word() in stop:
                break
            else:
                raise self.error()
        return script

    def and_or(self, stop: set[str]) -> AndOr:
        node = AndOr(self.pipeline(stop))
        while isinstance(self.peek(), Op) and self.peek().kind in ("&&", "||"):  # type: ignore[union-attr]
            op = self.next().kind  # type: ignore[union-attr]
            self.skip_newlines()
            node.rest.append((op, self.pipeline(stop)))
        return node

    def pipeline(self, stop: set[str]) -> Pipeline:
        negate = timed = False
        if self.peek_word() == "time":
            self.i += 1
            timed = True
            while self.peek_word() == "-p":
                self.i += 1
        if self.peek_word() == "!":
            self.i += 1
            negate = True
        pipe = Pipeline([self.command(stop)], negate, timed)
        while isinstance(self.peek(), Op) and self.peek().kind in ("|", "|&"):  # type: ignore[union-attr]
            pipe.stderr_too.append(self.next().kind == "|&")  # type: ignore[union-attr]
            self.skip_newlines()
            pipe.commands.append(self.command(stop))
        pipe.stderr_too.append(False)
        return pipe

    def command(self, stop: set[str]) -> Command:
        tok = self.peek()
        if not (isinstance(tok, Op) and tok.kind == "(" or self.peek_word() in _COMPOUND):
            return self._command(stop)
        self.depth += 1
        if self.depth > NESTING_LIMIT:
            raise too_deep()
        try:
            return self._command(stop)
        finally:
            self.depth -= 1

    def _command(self, stop: set[str]) -> Command:
        tok = self.peek()
        if tok is None:
            raise self.error()
        if isinstance(tok, Op):
            if tok.kind == "((":
                self.i += 1
                return ArithCommand(tok.source, self.redirects())
            if tok.kind == "(":
                self.i += 1
                body = self.script({")"})
                if not isinstance(self.peek(), Op) or self.peek().kind != ")":  # type: ignore[union-attr]
                    raise self.error()
                self.i += 1
                if not body.items:
                    raise self.error(self.tokens[self.i - 1])
                return Group(body, True, self.redirects())
            if tok.kind not in _REDIRECTS:
                raise self.error()
        word = self.peek_word()
        if word in _UNSUPPORTED:
            raise ShellSyntaxError(f"{word}: {_UNSUPPORTED[word]} are not supported by this shell")
        if word == "{":
            self.i += 1
            body = self.script({"}"})
            self.expect_word("}")
            return Group(body, False, self.redirects())
        if word == "for":
            return self.for_loop()
        if word == "case":
            return self.case_clause()
        if word in ("while", "until"):
            self.i += 1
            cond = self.script({"do"})
            self.expect_word("do")
            body = self.script({"done"})
            self.expect_word("done")
            return While(cond, body, word == "until", self.redirects())
        if word == "if":
            return self.if_clause()
        if word in RESERVED and word != "in":
            raise self.error()
        return self.simple()

    def for_loop(self) -> For:
        self.i += 1
        name_tok = self.next()
        if not isinstance(name_tok, Word):
            raise self.error(name_tok)
        if not name_tok.is_plain() or not _is_name(name_tok.literal() or ""):
            raise ShellSyntaxError(f"`{name_tok.raw}': not a valid identifier")
        words: list[Word] | None = None
        self.skip_newlines()
        if self.peek_word() == "in":
            self.i += 1
            words = []
            while isinstance(self.peek(), Word):
                words.append(self.next())  # type: ignore[arg-type]
        tok = self.peek()
        if isinstance(tok, Op) and tok.kind in (";", "\n"):
            self.i += 1
        self.expect_word("do")
        body = self.script({"done"})
        self.expect_word("done")
        return For(name_tok.literal() or "", words, body, self.redirects())

    def case_clause(self) -> Case:
        self.i += 1
        subject = self.next()
        if not isinstance(subject, Word):
            raise self.error(subject)
        self.skip_newlines()
        self.expect_word("in")
        items: list[tuple[list[Word], Script]] = []
        while True:
            self.skip_newlines()
            if self.peek_word() == "esac":
                self.i += 1
                break
            if isinstance(self.peek(), Op) and self.peek().kind == "(":  # type: ignore[union-attr]
                self.i += 1
            patterns: list[Word] = []
            while True:
                tok = self.next()
                if not isinstance(tok, Word):
                    raise self.error(tok)
                patterns.append(tok)
                sep = self.next()
                if isinstance(sep, Op) and sep.kind == ")":
                    break
                if not (isinstance(sep, Op) and sep.kind == "|"):
                    raise self.error(sep)
            body = self.script({"esac", ";;"}) if not self._at_op(";;") else Script()
            items.append((patterns, body))
            self.skip_newlines()
            if self._at_op(";;"):
                self.i += 1
            elif self.peek_word() != "esac":
                raise self.error()
        return Case(subject, items, self.redirects())

    def _at_op(self, kind: str) -> bool:
        tok = self.peek()
        return isinstance(tok, Op) and tok.kind == kind

    def if_clause(self) -> If:
        self.i += 1
        branches = []
        cond = self.script({"then"})
        self.expect_word("then")
        body = self.script({"elif", "else", "fi"})
        branches.append((cond, body))
        orelse = None
        while True:
            word = self.peek_word()
            if word == "elif":
                self.i += 1
                cond = self.script({"then"})
                self.expect_word("then")
                branches.append((cond, self.script({"elif", "else", "fi"})))
            elif word == "else":
                self.i += 1
                orelse = self.script({"fi"})
            else:
                self.expect_word("fi")
                break
        return If(branches, orelse, self.redirects())

    def redirect(self) -> Redirect:
        op = self.next()
        assert isinstance(op, Op)
        target = self.peek()
        if not isinstance(target, Word):
            raise self.error()
        self.i += 1
        return Redirect(op.kind, op.fd, target, op.heredoc, op.expand, op.unterminated)

    def redirects(self) -> list[Redirect]:
        found = []
        while isinstance(self.peek(), Op) and self.peek().kind in _REDIRECTS:  # type: ignore[union-attr]
            found.append(self.redirect())
        return found

    def simple(self) -> Simple:
        cmd = Simple()
        while True:
            tok = self.peek()
            if isinstance(tok, Op):
                if tok.kind in _REDIRECTS:
                    cmd.redirects.append(self.redirect())
                    continue
                break
            if tok is None:
                break
            if not cmd.words:
                eq = tok.raw.find("=")
                name = tok.raw[:eq]
                append = name.endswith("+")
                if append:
                    name = name[:-1]
                if eq > 0 and _is_name(name) and tok.parts and _starts_plain(tok, eq + 1):
                    cmd.assigns.append((name + ("+" if append else ""), _strip_prefix(tok, eq + 1)))
                    self.i += 1
                    continue
            cmd.words.append(tok)
            self.i += 1
        if not (cmd.words or cmd.assigns or cmd.redirects):
            raise self.error()
        return cmd


def _starts_plain(word: Word, length: int) -> bool:
    """Whether the first ``length`` characters of the word are one unquoted literal."""
    first = word.parts[0]
    return isinstance(first, Lit) and not first.quoted and len(first.text) >= length


def _strip_prefix(word: Word, length: int) -> Word:
    """The word without its first ``length`` characters (the ``NAME=`` of an assignment)."""
    first = word.parts[0]
    assert isinstance(first, Lit)
    rest = first.text[length:]
    parts = list(word.parts[1:])
    if rest:
        if rest == "~" or rest.startswith("~/"):
            parts = [Tilde(""), *([Lit(rest[1:], False)] if rest[1:] else []), *parts]
        else:
            parts.insert(0, Lit(rest, False))
    return Word(parts, word.raw[length:])


def parse(text: str) -> Script:
    """The command tree of one input line (raises :class:`ShellSyntaxError`)."""
    parser = _Parser(tokenize(text))
    script = parser.script(set())
    if parser.peek() is not None:
        raise parser.error()
    return script
