"""What word expansion reads and changes through the shell (:class:`emulator.shell.expand.Env`): variables, bash's own included, assignments and exports, globs against the host's files, and ``$(...)``, which runs a nested line to completion."""

from __future__ import annotations

from emulator.cluster.ids import rng
from emulator.errors import LineStopped
from emulator.limits import DEPTH_LIMIT, VALUE_LIMIT, VARIABLES_LIMIT, limit_reached
from emulator.shell.expand import expand_word, glob_relative
from emulator.shell.interpreter.state import ShellState
from emulator.shell.interpreter.streams import Buffer, Run, Sink, Terminal
from emulator.shell.lexer import Word
from emulator.shell.parser import Script, parse
from emulator.shell.signals import ExitShell

#: The process id ``$$`` reports.
SHELL_PID = 24817
#: A value longer than this makes :meth:`ExpansionEnv._check_value` count what all variables hold.
_LONG_VALUE = 65_536


#: Variables bash sets without exporting them (Ubuntu 22.04's bash).
_BASH_VARIABLES = {"UID": "1001", "EUID": "1001", "PPID": str(SHELL_PID - 1), "BASH": "/bin/bash",
                   "BASH_VERSION": "5.1.16(1)-release", "HOSTTYPE": "x86_64", "OSTYPE": "linux-gnu",
                   "MACHTYPE": "x86_64-pc-linux-gnu", "IFS": " \t\n", "PS1": "\\u@\\h:\\w\\$ "}


class ExpansionEnv(ShellState):
    """The shell as word expansion sees it."""

    def run_script(self, script: Script, stdin: str, out: Sink, err: Sink) -> Run:
        """Run a list (a ``$(...)`` line, a compound command's body); defined by
        :class:`~emulator.shell.interpreter.pipelines.Pipelines`, the two recurse into each other."""
        raise NotImplementedError

    def lookup_var(self, name: str) -> str | None:
        special = {"?": str(self.last_status), "$": str(SHELL_PID), "0": "bash", "#": "0", "@": "", "*": "",
                   "!": "", "-": "himBHs"}
        if name in special:
            return special[name]
        if name == "RANDOM":
            self._random += 1
            return str(rng(self.cluster.seed, "RANDOM", self._random).randrange(32768))
        if name in self.vars:
            return self.vars[name]
        if name in self.env:
            return self.env[name]
        return _BASH_VARIABLES.get(name)

    def set_var(self, name: str, value: str) -> None:
        self._check_value(name, value)
        if name in self.env:
            self.env[name] = value
        else:
            self.vars[name] = value

    def _check_value(self, name: str, value: str) -> None:
        """A value stops at :data:`~emulator.limits.VALUE_LIMIT` characters, and all variables together at
        :data:`~emulator.limits.VARIABLES_LIMIT` (counted when a long value is set, so that short ones cost nothing)."""
        if len(value) > VALUE_LIMIT:
            raise LineStopped(limit_reached(f"bash: {name}: value longer than {VALUE_LIMIT} characters"))
        if len(value) > _LONG_VALUE:
            held = sum(len(v) for table in (self.vars, self.env) for n, v in table.items() if n != name)
            if held + len(value) > VARIABLES_LIMIT:
                raise LineStopped(limit_reached(f"bash: {name}: variables longer than {VARIABLES_LIMIT} characters in all"))

    def export(self, name: str, value: str | None = None) -> None:
        if value is None:
            value = self.vars.pop(name, self.env.get(name, ""))
        self._check_value(name, value)
        self.vars.pop(name, None)
        self.env[name] = value

    def unset(self, name: str) -> None:
        self.vars.pop(name, None)
        self.env.pop(name, None)

    def expand(self, word: Word) -> list[str]:
        return expand_word(word, self)

    def glob(self, pattern: str) -> list[str]:
        return glob_relative(pattern, self.cwd, self.fs.glob)

    def substitute(self, source: str) -> str:
        """Run ``$(...)``: the inner line's stdout (stderr still reaches the screen)."""
        out = Buffer("command substitution")
        self.subshells += 1
        try:
            self._nested(self.run_script(parse(source), "", out, Terminal(self, "err")))
        except ExitShell:
            pass
        finally:
            self.subshells -= 1
        return out.text()

    def _nested(self, run: Run) -> int:
        """Run to completion inside another command (no chunk boundaries)."""
        if self._depth >= DEPTH_LIMIT:
            raise LineStopped(limit_reached(f"bash: commands nested deeper than {DEPTH_LIMIT} levels"))
        self._depth += 1
        try:
            while True:
                try:
                    pause = next(run)
                except StopIteration as stop:
                    return int(stop.value or 0)
                self.cluster.clock.advance(pause)
        finally:
            self._depth -= 1

