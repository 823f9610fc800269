"""Compound commands: groups and subshells, ``for``, ``while``/``until``, ``case``, ``if`` and ``(( ))``; and the count of commands a line runs.

A compound command's body is a list, which
:mod:`emulator.shell.interpreter.pipelines` runs: the two recurse into each other.
"""

from __future__ import annotations

import fnmatch
from dataclasses import replace
from typing import Any

from emulator.errors import LineStopped
from emulator.limits import COMMAND_LIMIT, LOOP_LIMIT, limit_reached
from emulator.shell.expand import arithmetic, expand_word
from emulator.shell.interpreter.simple import SimpleCommands
from emulator.shell.interpreter.streams import Input, Run, Sink
from emulator.shell.lexer import Lit, Word
from emulator.shell.parser import ArithCommand, Case, For, Group, If, Simple, While
from emulator.shell.signals import ExitShell
from emulator.vfs import glob_escape

#: What a loop says when :data:`~emulator.limits.LOOP_LIMIT` stops it.
LOOP_STOPPED = limit_reached(f"bash: loop stopped after {LOOP_LIMIT} iterations")


class CompoundCommands(SimpleCommands):
    """Running one node of the command tree, simple or compound."""

    def run_command(self, command: Any, stdin: str, out: Sink, err: Sink) -> Run:
        self._commands += 1
        if self._commands > COMMAND_LIMIT:
            raise LineStopped(limit_reached(f"bash: stopped after running {COMMAND_LIMIT} commands in one line"))
        if isinstance(command, Simple):
            return (yield from self.run_simple(command, stdin, out, err))
        redirected = self.redirect(command.redirects, stdin, out, err)
        if redirected is None:
            return 1
        stdin, out, err = redirected
        if isinstance(command, Group):
            if not command.subshell:
                return (yield from self.run_script(command.body, stdin, out, err))
            frames = [replace(f) for f in self.frames]
            env, variables, aliases = dict(self.env), dict(self.vars), dict(self.aliases)
            self.subshells += 1
            try:
                return (yield from self.run_script(command.body, stdin, out, err))
            except ExitShell as stop:
                return stop.status
            finally:
                self.subshells -= 1
                self.frames, self.env, self.vars, self.aliases = frames, env, variables, aliases
        if isinstance(command, For):
            if command.words is None:
                values: list[str] = []
            else:
                values = [v for w in command.words for v in self.expand(w)]
            status = 0
            for value in values[:LOOP_LIMIT]:
                self.set_var(command.name, value)
                status = yield from self.run_script(command.body, stdin, out, err)
            if len(values) > LOOP_LIMIT:
                err.write(f"{LOOP_STOPPED}\n")
                return 1
            return status
        if isinstance(command, While):
            status = 0
            cursor = Input(stdin)
            self.inputs.append(cursor)
            try:
                for _ in range(LOOP_LIMIT):
                    cond = yield from self.run_script(command.cond, cursor.rest, out, err)
                    if (cond == 0) == command.until:
                        return status
                    status = yield from self.run_script(command.body, cursor.rest, out, err)
            finally:
                self.inputs.pop()
            err.write(f"{LOOP_STOPPED}\n")
            return 1
        if isinstance(command, ArithCommand):
            return 0 if arithmetic(command.source, self) else 1
        if isinstance(command, Case):
            subject = "".join(expand_word(command.word, self, split=False, glob=False))
            for patterns, body in command.items:
                if any(fnmatch.fnmatchcase(subject, self._pattern(pattern)) for pattern in patterns):
                    return (yield from self.run_script(body, stdin, out, err))
            return 0
        if isinstance(command, If):
            for test, body in command.branches:
                if (yield from self.run_script(test, stdin, out, err)) == 0:
                    return (yield from self.run_script(body, stdin, out, err))
            if command.orelse is not None:
                return (yield from self.run_script(command.orelse, stdin, out, err))
            return 0
        raise TypeError(f"unknown command node {command!r}")

    def _pattern(self, word: Word) -> str:
        """A ``case`` pattern: expanded, with quoted parts matching literally."""
        return "".join(glob_escape(t) if isinstance(part, Lit) and part.quoted else t
                       for part in word.parts
                       for t in ["".join(expand_word(Word([part], word.raw), self, split=False, glob=False))])
