"""awk's parser: tokens into a program of ``BEGIN`` blocks, pattern-action rules and ``END`` blocks.

Nodes are tuples ``(kind, ...)``: statements such as ``("if", cond, then, else)`` and
expressions such as ``("bin", "+", left, right)``. Expressions are parsed by precedence
climbing, one method per level, from the ternary down to a primary.

One concept: awk's grammar as one recursive-descent parser. Its statement levels read
expressions through its expression levels, and both share one token cursor and the state
that tells the ``>`` of ``print`` (a redirection) from a comparison.
"""

from __future__ import annotations

from typing import Any

from emulator.commands.awk.errors import AwkError
from emulator.commands.awk.lexer import Tok
from emulator.commands.awk.values import num_str


class Parser:
    """A recursive-descent parser over a token list; :meth:`program` parses the whole of it.

    ``no_gt`` turns off ``>`` as a comparison in the arguments of ``print``, where it
    redirects the output; parentheses turn it back on.
    """

    def __init__(self, tokens: list[Tok]) -> None:
        self.t = tokens
        self.i = 0
        self.no_gt = False

    def peek(self, offset: int = 0) -> Tok:
        return self.t[min(self.i + offset, len(self.t) - 1)]

    def at(self, value: str, kind: str = "op") -> bool:
        tok = self.peek()
        return tok.kind == kind and tok.value == value

    def take(self, value: str | None = None, kind: str = "op") -> Tok:
        tok = self.peek()
        if value is not None and not (tok.kind == kind and tok.value == value):
            raise self.error()
        self.i += 1
        return tok

    def error(self) -> AwkError:
        tok = self.peek()
        near = {"eof": "end of file"}.get(tok.kind, tok.value if tok.value != "\n" else "end of line")
        if tok.kind == "num":
            near = num_str(tok.value)
        return AwkError(f"line {tok.line}: syntax error at or near {near}")

    def newlines(self) -> None:
        while self.at("\n"):
            self.i += 1

    def terminators(self) -> None:
        while self.at("\n") or self.at(";"):
            self.i += 1

    def program(self) -> tuple[list, list, list]:
        begin, main, end = [], [], []
        self.terminators()
        while self.peek().kind != "eof":
            if self.at("BEGIN", "kw"):
                self.i += 1
                self.newlines()
                begin.append(self.block())
            elif self.at("END", "kw"):
                self.i += 1
                self.newlines()
                end.append(self.block())
            elif self.at("function", "kw"):
                raise AwkError(f"line {self.peek().line}: user-defined functions are not supported by this awk")
            else:
                pattern: Any = None
                pattern2: Any = None
                if not self.at("{"):
                    pattern = self.expr()
                    if self.at(","):
                        self.i += 1
                        self.newlines()
                        pattern2 = self.expr()
                action = self.block() if self.at("{") else None
                main.append([pattern, pattern2, action, False])
            self.terminators()
        return begin, main, end

    def block(self) -> tuple:
        self.take("{")
        stmts = []
        self.terminators()
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise AwkError(f"line {self.peek().line + 1}: missing }} near end of file")
            stmts.append(self.statement())
            self.terminators()
        self.take("}")
        return ("block", stmts)

    def simple_end(self) -> None:
        if self.at(";") or self.at("\n"):
            self.i += 1
        elif not (self.at("}") or self.peek().kind == "eof"):
            raise self.error()

    def statement(self) -> tuple:
        tok = self.peek()
        if tok.kind == "op" and tok.value == "{":
            return self.block()
        if tok.kind == "op" and tok.value == ";":
            self.i += 1
            return ("block", [])
        if tok.kind == "kw":
            word = tok.value
            if word == "if":
                self.i += 1
                self.take("(")
                cond = self.expr()
                self.take(")")
                self.newlines()
                then = self.statement()
                save = self.i
                self.terminators()
                if self.at("else", "kw"):
                    self.i += 1
                    self.newlines()
                    return ("if", cond, then, self.statement())
                self.i = save
                return ("if", cond, then, None)
            if word == "while":
                self.i += 1
                self.take("(")
                cond = self.expr()
                self.take(")")
                if self.at(";"):
                    self.i += 1
                    return ("while", cond, ("block", []))
                self.newlines()
                return ("while", cond, self.statement())
            if word == "do":
                self.i += 1
                self.newlines()
                body = self.statement()
                self.terminators()
                self.take("while", "kw")
                self.take("(")
                cond = self.expr()
                self.take(")")
                self.simple_end()
                return ("do", body, cond)
            if word == "for":
                self.i += 1
                self.take("(")
                if self.peek().kind == "name" and self.peek(1).kind == "kw" and self.peek(1).value == "in" \
                        and self.peek(2).kind == "name" and self.peek(3).value == ")":
                    var = self.take(kind="name").value
                    self.i += 1
                    arr = self.take(kind="name").value
                    self.take(")")
                    self.newlines()
                    return ("forin", var, arr, self.statement())
                init = None if self.at(";") else self.simple_statement()
                self.take(";")
                self.newlines()
                test = None if self.at(";") else self.expr()
                self.take(";")
                self.newlines()
                step = None if self.at(")") else self.simple_statement()
                self.take(")")
                if self.at(";"):
                    self.i += 1
                    return ("for", init, test, step, ("block", []))
                self.newlines()
                return ("for", init, test, step, self.statement())
            if word in ("next", "break", "continue", "nextfile"):
                self.i += 1
                self.simple_end()
                return (word if word != "nextfile" else "next",)
            if word == "exit":
                self.i += 1
                value = None if self.at(";") or self.at("\n") or self.at("}") else self.expr()
                self.simple_end()
                return ("exit", value)
            if word in ("getline", "return"):
                raise AwkError(f"line {tok.line}: {word} is not supported by this awk")
        stmt = self.simple_statement()
        self.simple_end()
        return stmt

    def simple_statement(self) -> tuple:
        tok = self.peek()
        if tok.kind == "kw" and tok.value in ("print", "printf"):
            self.i += 1
            args: list = []
            self.no_gt = True
            try:
                if not (self.at(";") or self.at("\n") or self.at("}") or self.at(">") or self.at(">>")
                        or self.at("|") or self.peek().kind == "eof"):
                    args = self.expr_list()
            finally:
                self.no_gt = False
            if len(args) == 1 and args[0][0] == "group":
                args = args[0][1]
            dest = None
            if self.at(">") or self.at(">>"):
                mode = self.take().value
                dest = (mode, self.concat_level())
            elif self.at("|"):
                raise AwkError(f"line {tok.line}: output pipes are not supported by this awk")
            if tok.value == "printf" and not args:
                raise self.error()
            return (tok.value, args, dest)
        if tok.kind == "kw" and tok.value == "delete":
            self.i += 1
            name = self.take(kind="name").value
            if self.at("["):
                self.i += 1
                keys = self.expr_list()
                self.take("]")
                return ("delete", name, keys)
            return ("delete", name, None)
        return ("expr", self.expr())

    def expr_list(self) -> list:
        items = [self.expr()]
        while self.at(","):
            self.i += 1
            self.newlines()
            items.append(self.expr())
        return items

    # precedence climbing ------------------------------------------------------------------
    def expr(self) -> tuple:
        return self.ternary()

    def ternary(self) -> tuple:
        cond = self.or_()
        if self.at("?"):
            self.i += 1
            self.newlines()
            a = self.ternary()
            self.newlines()
            self.take(":")
            self.newlines()
            b = self.ternary()
            return ("cond", cond, a, b)
        assigning = self.at("=") or (self.peek().kind == "op" and self.peek().value in ("+=", "-=", "*=", "/=", "%=", "^="))
        if assigning and cond[0] in ("var", "field", "index"):
            op = self.take().value
            self.newlines()
            return ("assign", op, cond, self.ternary())
        return cond

    def or_(self) -> tuple:
        left = self.and_()
        while self.at("||"):
            self.i += 1
            self.newlines()
            left = ("or", left, self.and_())
        return left

    def and_(self) -> tuple:
        left = self.in_()
        while self.at("&&"):
            self.i += 1
            self.newlines()
            left = ("and", left, self.in_())
        return left

    def in_(self) -> tuple:
        left = self.match()
        while self.at("in", "kw"):
            self.i += 1
            arr = self.take(kind="name").value
            left = ("in", [left] if left[0] != "group" else left[1], arr)
        return left

    def match(self) -> tuple:
        left = self.compare()
        while self.at("~") or self.at("!~"):
            op = self.take().value
            left = ("match", op == "!~", left, self.compare())
        return left

    def compare(self) -> tuple:
        left = self.concat_level()
        tok = self.peek()
        if tok.kind == "op" and tok.value in ("<", "<=", "!=", "==", ">=", ">") and not (self.no_gt and tok.value == ">"):
            op = self.take().value
            return ("cmp", op, left, self.concat_level())
        return left

    def concat_level(self) -> tuple:
        left = self.additive()
        while True:
            tok = self.peek()
            starts = tok.kind in ("num", "str", "ere", "name", "builtin", "funcname") or (
                tok.kind == "op" and tok.value in ("$", "!", "(", "++", "--", "-", "+")) and not (
                tok.kind == "op" and tok.value in ("-", "+"))
            if tok.kind == "kw" and tok.value == "in":
                starts = False
            if not starts:
                return left
            left = ("concat", left, self.additive())

    def additive(self) -> tuple:
        left = self.mult()
        while self.at("+") or self.at("-"):
            op = self.take().value
            left = ("bin", op, left, self.mult())
        return left

    def mult(self) -> tuple:
        left = self.unary()
        while self.at("*") or self.at("/") or self.at("%"):
            op = self.take().value
            left = ("bin", op, left, self.unary())
        return left

    def unary(self) -> tuple:
        if self.at("!"):
            self.i += 1
            return ("not", self.unary())
        if self.at("-"):
            self.i += 1
            return ("neg", self.unary())
        if self.at("+"):
            self.i += 1
            return ("pos", self.unary())
        return self.power()

    def power(self) -> tuple:
        base = self.postfix()
        if self.at("^"):
            self.i += 1
            return ("bin", "^", base, self.unary_power())
        return base

    def unary_power(self) -> tuple:
        if self.at("-"):
            self.i += 1
            return ("neg", self.unary_power())
        return self.power()

    def postfix(self) -> tuple:
        if self.at("++") or self.at("--"):
            op = self.take().value
            target = self.postfix()
            if target[0] not in ("var", "field", "index"):
                raise self.error()
            return ("preinc", 1.0 if op == "++" else -1.0, target)
        node = self.primary()
        if (self.at("++") or self.at("--")) and node[0] in ("var", "field", "index"):
            op = self.take().value
            return ("postinc", 1.0 if op == "++" else -1.0, node)
        return node

    def primary(self) -> tuple:
        tok = self.peek()
        if tok.kind == "num":
            self.i += 1
            return ("num", tok.value)
        if tok.kind == "str":
            self.i += 1
            return ("str", tok.value)
        if tok.kind == "ere":
            self.i += 1
            return ("ere", tok.value)
        if tok.kind == "op" and tok.value == "$":
            self.i += 1
            if self.at("++") or self.at("--") or self.at("-"):
                return ("field", self.unary())
            return ("field", self.primary())
        if tok.kind == "op" and tok.value == "(":
            self.i += 1
            saved = self.no_gt
            self.no_gt = False
            items = self.expr_list()
            self.no_gt = saved
            self.take(")")
            if len(items) > 1:
                return ("group", items)
            return ("paren", items[0])
        if tok.kind == "builtin":
            self.i += 1
            name = tok.value
            args: list = []
            if self.at("("):
                self.i += 1
                saved = self.no_gt
                self.no_gt = False
                if not self.at(")"):
                    args = self.expr_list()
                self.no_gt = saved
                self.take(")")
            elif name != "length":
                raise self.error()
            return ("call", name, args)
        if tok.kind == "funcname":
            raise AwkError(f"line {tok.line}: function {tok.value} never defined")
        if tok.kind == "name":
            self.i += 1
            if self.at("["):
                self.i += 1
                keys = self.expr_list()
                self.take("]")
                return ("index", tok.value, keys)
            return ("var", tok.value)
        if tok.kind == "op" and tok.value == "-":
            self.i += 1
            return ("neg", self.primary())
        raise self.error()
