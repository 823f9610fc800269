"""The shell: a session's interpreter, and its entry points for a typed line, a line run by a command, and a command run by another.

Execution is a generator: every pause a streaming command asks for (``yield
seconds``) is passed up, so the session can flush the output so far as one
chunk, advance the simulated clock, and close the generator between chunks
on an interrupt (nested runs, such as ``$(...)``, advance the clock
themselves).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.cluster.accounts import LEARNER
from emulator.commands.kit.command import Context, Result
from emulator.errors import LineStopped, OutputLimitExceeded
from emulator.limits import limit_reached
from emulator.shell.interpreter.pipelines import Pipelines
from emulator.shell.interpreter.state import Frame
from emulator.shell.interpreter.streams import Buffer, ContextSink, Run, Terminal
from emulator.shell.lexer import ShellSyntaxError
from emulator.shell.parser import parse
from emulator.shell.signals import ExitShell

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node


#: What the line says when Python's own recursion limit stops it before :data:`~emulator.limits.NESTING_LIMIT`
#: does (nesting of several kinds at once: groups inside ``$( )`` inside ``${ }``...).
TOO_DEEP = limit_reached("bash: nesting too deep")


class Shell(Pipelines):
    """The interpreter of one session: its state, and the ways a line gets run."""

    def run_line(self, line: str) -> Run:
        """Run one input line; every error becomes a message and a status."""
        self._shown = 0
        self._commands = 0
        err = Terminal(self, "err")
        try:
            script = parse(line)
        except ShellSyntaxError as exc:
            err.write(f"bash: {exc.message}\n")
            self.last_status = 2
            return 2
        except RecursionError:
            err.write(f"{TOO_DEEP}\n")
            self.last_status = 2
            return 2
        try:
            status = yield from self.run_script(script, "", Terminal(self, "out"), err)
        except ExitShell as stop:
            status = stop.status
            self.end_shell()
        except ShellSyntaxError as exc:
            # An expansion error ends the whole line, as in an interactive bash.
            self.pending.append(("err", f"bash: {exc.message}\n"))
            status = 1
        except (LineStopped, OutputLimitExceeded) as exc:
            self.pending.append(("err", f"{exc}\n"))
            status = 1
        except RecursionError:
            self.pending.append(("err", f"{TOO_DEEP}\n"))
            status = 2
        self.last_status = status
        return status

    def run_argv(self, argv: list[str], host: Node | None = None, stdin: str = "",
                 env: dict[str, str] | None = None, user: str = LEARNER, inherit: bool = True) -> Result:
        """Run one command to completion, capturing its output (for ``ctx.run``); without ``inherit``, in a
        login's environment plus ``env`` instead of this shell's."""
        out, err = Buffer(), Buffer()
        pushed = host is not None and host is not self.host
        if pushed:
            assert host is not None
            cwd = self.cwd if self.fs_for(host).isdir(self.cwd) else "/"
            self.frames.append(Frame(host, cwd))
            self._sync_env()
        try:
            status = self._nested(self.run_command_argv(argv, stdin, out, err, env or {}, user, inherit))
        except OutputLimitExceeded as exc:
            err.parts.append(f"{exc}\n")
            status = 1
        finally:
            if pushed:
                self.frames.pop()
                self._sync_env()
        return Result(out.text(), err.text(), status)

    def capture(self, line: str) -> str:
        """Run a line to completion and return its stdout and stderr together (``watch``)."""
        out = Buffer()
        self.subshells += 1
        try:
            self._nested(self.run_script(parse(line), "", out, out))
        except ShellSyntaxError as exc:
            out.write(f"sh: 1: {exc.message}\n")
        except ExitShell:
            pass
        finally:
            self.subshells -= 1
        return out.text()

    def run_remote(self, line: str, host: Node, ctx: Context) -> Run:
        """``ssh host 'line'``: run a line on another host, streaming through ``ctx``."""
        depth = len(self.frames)
        self.push_host(host)
        self.frames[-1].remote = True
        try:
            try:
                script = parse(line)
            except ShellSyntaxError as exc:
                ctx.err(f"bash: {exc.message}\n")
                return 2
            return (yield from self.run_script(script, ctx.stdin, ContextSink(ctx, "out"), ContextSink(ctx, "err")))
        except ExitShell as stop:
            return stop.status
        except ShellSyntaxError as exc:
            ctx.err(f"bash: {exc.message}\n")
            return 1
        finally:
            del self.frames[depth:]
            self._sync_env()

    def run_source(self, text: str, ctx: Context) -> Run:
        """``source FILE``: run a file's lines in this shell, streaming through ``ctx``."""
        return (yield from self.run_script(parse(text), ctx.stdin, ContextSink(ctx, "out"), ContextSink(ctx, "err")))
