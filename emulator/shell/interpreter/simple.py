"""Simple commands: expand the words and assignments, apply the redirections, expand an alias, then look the name up in the command table and run it in a :class:`Context`, each error it raises becoming a message and a status.

A command that needs GPUs (``Command.needs_gpus``) and fails on a host without
them gets, the first time in the session, a terminal tip under its own error
(chunk kind ``"tip"``, never part of the tool's output): the GPUs are on the
compute nodes, and ``ssh`` reaches one. "The first time" is read from the
session's history (no earlier line names a GPU tool), not from a flag, so a
session restored from its journal, which skips read-only lines, gives the tip
exactly where the original did.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Generator
from contextlib import suppress

from emulator.cluster import memo
from emulator.cluster.accounts import LEARNER
from emulator.cluster.scheduler import compress_hostlist
from emulator.commands.kit.command import Command, Context
from emulator.errors import CommandError, EmulatorError, LineStopped, OutputLimitExceeded
from emulator.limits import ARG_LIMIT, ARGV_LIMIT, limit_reached
from emulator.shell.expand import expand_word
from emulator.shell.interpreter.redirects import Redirections
from emulator.shell.interpreter.state import HOST_VARS, default_env
from emulator.shell.interpreter.streams import ContextSink, Run, Sink, Terminal
from emulator.shell.lexer import ShellSyntaxError
from emulator.shell.parser import Simple
from emulator.shell.signals import ExitShell
from emulator.vfs import FsError

#: The chunk kind of a terminal tip: the screen shows it dimmed, apart from the tools' output.
TIP = "tip"


class SimpleCommands(Redirections):
    """Running one command by name, here or inside another command (``sudo``, ``timeout``)."""

    #: The history line whose GPU tool got the tip (a second failure on the same line says nothing).
    gpu_tip_line = -1

    def run_simple(self, cmd: Simple, stdin: str, out: Sink, err: Sink) -> Run:
        argv = [v for w in cmd.words for v in self.expand(w)]
        assigns = []
        for name, word in cmd.assigns:
            value = "".join(expand_word(word, self, split=False, glob=False))
            if name.endswith("+"):
                name = name[:-1]
                value = (self.lookup_var(name) or "") + value
            assigns.append((name, value))
        redirected = self.redirect(cmd.redirects, stdin, out, err)
        if redirected is None:
            return 1
        stdin, out, err = redirected
        if not argv:
            for name, value in assigns:
                self.set_var(name, value)
            return 0
        env = dict(self.env)
        env.update(assigns)
        return (yield from self.run_command_argv(argv, stdin, out, err, env))

    def run_streaming(self, argv: list[str], ctx: Context, user: str | None = None) -> Run:
        """Run a command inside another one (``sudo``, ``timeout``), streaming through its context,
        as ``user`` (``sudo -u``) or as the one running ``ctx``."""
        return (yield from self.run_command_argv(argv, ctx.stdin, ContextSink(ctx, "out"), ContextSink(ctx, "err"), {},
                                                 user or ctx.user))

    def run_command_argv(self, argv: list[str], stdin: str, out: Sink, err: Sink,
                         env: dict[str, str], user: str = LEARNER, inherit: bool = True) -> Run:
        if argv[0] in self.aliases and argv[0] not in self._aliasing:
            # As bash does, an alias is not expanded again inside its own expansion (alias ls='ls -F').
            self._aliasing.add(argv[0])
            try:
                expanded = shlex.split(self.aliases[argv[0]]) + argv[1:]
            except ValueError:
                expanded = argv
            try:
                return (yield from self.run_command_argv(expanded or argv, stdin, out, err, env, user, inherit))
            finally:
                self._aliasing.discard(argv[0])
        name = argv[0]
        command = self.commands.lookup(name) if "/" not in name else None
        if command is None:
            return self._not_found(name, err)
        too_long = _too_long(command, name, argv)
        if too_long:
            err.write(too_long[0])
            return too_long[1]
        base = self.env if inherit else {**default_env(), **{k: v for k, v in self.env.items() if k in HOST_VARS}}
        ctx = Context(argv=argv, stdin=stdin, env={**base, **env}, shell=self, isatty=isinstance(out, Terminal),
                      user=user)
        status = 0
        try:
            # Model answers are kept within each piece of a command that changes nothing (emulator.cluster.memo).
            unchanging = command.leaves_model(argv[1:])
            with memo.scope(unchanging):
                outcome = command.main(ctx)
            if isinstance(outcome, Generator):
                while True:
                    try:
                        with memo.scope(unchanging):
                            pause = next(outcome)
                    except StopIteration as stop:
                        status = int(stop.value or 0)
                        break
                    self._route(ctx, out, err)
                    yield max(0.0, float(pause or 0.0))
            else:
                status = int(outcome or 0)
            self._route(ctx, out, err)
        except CommandError as exc:
            self._route(ctx, out, err)
            if exc.message:
                err.write(exc.message if exc.message.endswith("\n") else exc.message + "\n")
            status = exc.status
        except OutputLimitExceeded as exc:
            # The command, or the pipe it writes to, reached its limit: what fitted goes on, then the one line.
            with suppress(OutputLimitExceeded):
                self._route(ctx, out, err)
            err.write(f"{exc}\n")
            status = 1
        except (LineStopped, ExitShell):
            self._route(ctx, out, err)
            raise
        except (EmulatorError, ShellSyntaxError) as exc:
            self._route(ctx, out, err)
            err.write(f"bash: {name}: {exc}\n")
            status = 1
        except Exception as exc:  # noqa: BLE001 - a bug in a command must not end the session
            ctx.take_output()
            err.write(f"bash: internal error in {name}: {type(exc).__name__}: {exc}\n")
            status = 1
        if status and command.needs_gpus:
            self._gpu_tip(command)
        return status

    def _gpu_tip(self, command: Command) -> None:
        """A GPU tool failed on a host without GPUs: say where the GPUs are, once a session."""
        host = self.host
        nodes = [node.name for node in self.cluster.compute_nodes if node.gpus]
        history = self.session.history
        line = self.session.history_base + len(history)
        if host.gpus or not nodes or not history or self.gpu_tip_line == line:
            return
        tools = {c.name for c in self.commands.commands() if c.needs_gpus}
        if any(tools.intersection(earlier.replace(";", " ").replace("|", " ").split()) for earlier in history[:-1]):
            return
        self.gpu_tip_line = line
        self.emit(TIP, f"tip: {host.name} has no GPUs; the compute nodes {compress_hostlist(nodes)} have them: "
                       f"ssh to one (ssh {nodes[0]}), then run {command.name} there.\n")

    def _route(self, ctx: Context, out: Sink, err: Sink) -> None:
        """Hand the command's output to its sinks; a full pipe raises after the rest went to the other sink."""
        full: OutputLimitExceeded | None = None
        for stream, text in ctx.take_output():
            try:
                if stream == "ok" and isinstance(out, Terminal):
                    self.emit(stream, text)  # a verdict on the screen keeps its kind
                else:
                    (out if stream in ("out", "ok") else err).write(text)
            except FsError as exc:
                err.write(f"bash: {exc.path}: {exc.strerror}\n")
            except OutputLimitExceeded as exc:
                full = exc
        if full is not None:
            raise full

    def _not_found(self, name: str, err: Sink) -> int:
        if "/" in name:
            fs = self.fs
            path = posixpath.normpath(name)
            if not fs.exists(path):
                err.write(f"bash: {name}: No such file or directory\n")
                return 127
            if fs.isdir(path):
                err.write(f"bash: {name}: Is a directory\n")
                return 126
            err.write(f"bash: {name}: Permission denied\n")
            return 126
        err.write(f"bash: {name}: command not found\n")
        return 127


def _too_long(command: Command, name: str, argv: list[str]) -> tuple[str, int] | None:
    """The message and status for arguments past Linux's limits (bash's builtins: past the terminal's), or None."""
    total = sum(len(word) + 1 for word in argv)
    if total <= ARGV_LIMIT and (command.builtin or all(len(word) < ARG_LIMIT for word in argv)):
        return None
    if command.builtin:
        return limit_reached(f"bash: {name}: arguments longer than {ARGV_LIMIT} characters in all") + "\n", 1
    return f"bash: {command.path(name) or name}: Argument list too long\n", 126
