"""Run a parsed line: expansion, redirections, pipelines, loops, commands.

Execution is a generator: every pause a streaming command asks for (``yield
seconds``) is passed up, so the session can flush the output so far as one
chunk, advance the simulated clock, and close the generator between chunks
on an interrupt (nested runs, such as ``$(...)``, advance the clock
themselves). Pipelines run stage by stage: each stage's stdout
becomes the next stage's stdin, and the last stage streams.
"""

from __future__ import annotations

import fnmatch
import posixpath
import shlex
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from emulator import hostfs
from emulator.cluster.ids import rng
from emulator.commands.kit.command import OUTPUT_LIMIT, Context, Result
from emulator.errors import CommandError, EmulatorError, OutputLimitExceeded
from emulator.shell import table
from emulator.shell.expand import arithmetic, expand_word, glob_relative
from emulator.shell.lexer import Lit, ShellSyntaxError, Word, tokenize
from emulator.shell.parser import (
    AndOr,
    ArithCommand,
    Case,
    For,
    Group,
    If,
    Pipeline,
    Redirect,
    Script,
    Simple,
    While,
    parse,
)
from emulator.shell.signals import ExitShell
from emulator.vfs import FileSystem, FsError, glob_escape

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: A running piece of the line: yields pauses (simulated seconds), returns a status.
Run = Generator[float, None, int]

USER = "alice"
HOME = "/home/alice"
#: Commands that may stream, and the filters that can take their output chunk by chunk.
#: Iterations after which a loop stops.
LOOP_LIMIT = 10_000
#: Commands one input line may run in all (nested loops included).
COMMAND_LIMIT = 50_000
#: Nesting depth of command substitutions and ``ctx.run`` calls.
DEPTH_LIMIT = 16
#: The process id ``$$`` reports.
SHELL_PID = 24817


class WorkLimitExceeded(OutputLimitExceeded):
    """A line ran more commands than :data:`COMMAND_LIMIT` allows."""


class Sink:
    """Where a file descriptor writes."""

    def write(self, text: str) -> None:
        raise NotImplementedError


class Terminal(Sink):
    """The screen: text is queued as (stream, text) for the next chunk."""

    def __init__(self, shell: Shell, stream: str) -> None:
        self.shell, self.stream = shell, stream

    def write(self, text: str) -> None:
        self.shell.emit(self.stream, text)


class Buffer(Sink):
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > OUTPUT_LIMIT:
            raise OutputLimitExceeded(f"output limit of {OUTPUT_LIMIT} characters exceeded")
        self.parts.append(text)

    def text(self) -> str:
        return "".join(self.parts)


class FileSink(Sink):
    def __init__(self, fs: FileSystem, path: str) -> None:
        self.fs, self.path = fs, path

    def write(self, text: str) -> None:
        self.fs.write(self.path, text, append=True)


class ContextSink(Sink):
    """Writes into a running command's context (a command that runs a line, such as ``ssh``)."""

    def __init__(self, ctx: Context, stream: str) -> None:
        self.ctx, self.stream = ctx, stream

    def write(self, text: str) -> None:
        (self.ctx.out if self.stream == "out" else self.ctx.err)(text)


class Null(Sink):
    def write(self, text: str) -> None:
        pass


class Input:
    """A loop's standard input, which ``read`` consumes line by line (``while read x; do ...; done < f``)."""

    def __init__(self, text: str) -> None:
        #: What is left; commands in the loop get this very string as their stdin.
        self.rest = text

    def read_line(self) -> str | None:
        """The next line without its newline, or None at the end."""
        if not self.rest:
            return None
        line, newline, rest = self.rest.partition("\n")
        self.rest = rest
        return line


@dataclass
class Frame:
    """One level of the host stack: ``ssh`` pushes, ``exit`` pops."""

    host: Node
    cwd: str
    oldpwd: str = ""
    #: A host entered only to run one line (``ssh host cmd``): ``exit`` there just ends.
    remote: bool = False
    #: A child shell a command started (``salloc``): ``exit`` ends it and prints what this returns.
    leave: Callable[[], str] | None = None
    #: The parent shell's environment, variables and aliases, restored when the child shell ends.
    parent: tuple[dict[str, str], dict[str, str], dict[str, str]] | None = None


#: Variables bash sets without exporting them (Ubuntu 22.04's bash).
_BASH_VARIABLES = {"UID": "1001", "EUID": "1001", "PPID": str(SHELL_PID - 1), "BASH": "/bin/bash",
                   "BASH_VERSION": "5.1.16(1)-release", "HOSTTYPE": "x86_64", "OSTYPE": "linux-gnu",
                   "MACHTYPE": "x86_64-pc-linux-gnu", "IFS": " \t\n", "PS1": "\\u@\\h:\\w\\$ "}


def default_env() -> dict[str, str]:
    return {
        "HOME": HOME, "USER": USER, "LOGNAME": USER, "SHELL": "/bin/bash", "TERM": "xterm-256color",
        "LANG": "C.UTF-8", "PATH": "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "PWD": HOME, "SHLVL": "1",
    }


class Shell:
    """The interpreter state of one session: host stack, variables, last status."""

    def __init__(self, session: Any, cluster: Cluster) -> None:
        self.session = session
        self.cluster = cluster
        self.frames = [Frame(cluster.nodes[cluster.login], HOME)]
        self.env = default_env()
        self.vars: dict[str, str] = {}
        self.last_status = 0
        self.pending: list[tuple[str, str]] = []
        self._pending_size = 0
        self._commands = 0
        self._random = 0
        #: Subshells ``( ... )`` running now (``exit`` ends the innermost).
        self.subshells = 0
        #: Inputs of the loops running now, innermost last (for ``read``).
        self.inputs: list[Input] = []
        self._depth = 0
        self._filesystems: dict[str, FileSystem] = {}
        self._shared = hostfs.shared_dirs(cluster)
        #: Every command this shell knows: the tool families and its own builtins.
        self.commands = table.commands()
        #: Ubuntu's default aliases from ~/.bashrc, plus those the learner defines.
        self.aliases = {"ll": "ls -alF", "la": "ls -A", "l": "ls -CF"}
        self._alias_depth = 0
        self._sync_env()

    # -- state ------------------------------------------------------------------
    @property
    def host(self) -> Node:
        return self.frames[-1].host

    @property
    def cwd(self) -> str:
        return self.frames[-1].cwd

    @cwd.setter
    def cwd(self, path: str) -> None:
        frame = self.frames[-1]
        frame.oldpwd, frame.cwd = frame.cwd, path
        self._sync_env()

    @property
    def home(self) -> str:
        return self.env.get("HOME", HOME)

    def fs_for(self, host: Node) -> FileSystem:
        fs = self._filesystems.get(host.name)
        if fs is None:
            fs = hostfs.build(self.cluster, host, self._shared)
            self._filesystems[host.name] = fs
        return fs

    @property
    def fs(self) -> FileSystem:
        """The current host's filesystem, resolving relative paths from the working directory."""
        fs = self.fs_for(self.host)
        fs.cwd = self.cwd
        return fs

    def push_host(self, host: Node) -> None:
        cwd = HOME if self.fs_for(host).isdir(HOME) else "/"
        self.frames.append(Frame(host, cwd))
        self._sync_env()

    def start_shell(self, env: dict[str, str], leave: Callable[[], str], host: Node | None = None) -> None:
        """A child shell with ``env`` added, here or on ``host`` (``salloc``, ``srun --pty bash``).

        ``exit`` ends it, see :meth:`end_shell`.
        """
        frame = self.frames[-1]
        parent = (dict(self.env), dict(self.vars), dict(self.aliases))
        if host is None or host is frame.host:
            self.frames.append(Frame(frame.host, frame.cwd, frame.oldpwd, True, leave, parent))
        else:
            cwd = frame.cwd if self.fs_for(host).isdir(frame.cwd) else "/"
            self.frames.append(Frame(host, cwd, "", True, leave, parent))
        level = self.env.get("SHLVL", "1")
        self.env.update(env)
        self.env["SHLVL"] = str(int(level) + 1 if level.isdecimal() else 1)
        self._sync_env()

    def end_shell(self) -> None:
        """After ``exit`` in a child shell: bash says ``exit``, the parent's variables return, the command ends."""
        frame = self.frames[-1]
        if frame.leave is None or frame.parent is None:
            return
        self.frames.pop()
        env, variables, aliases = frame.parent
        self.env, self.vars, self.aliases = dict(env), dict(variables), dict(aliases)
        self._sync_env()
        self.emit("err", "exit\n" + frame.leave())

    def pop_host(self) -> bool:
        """Return to the previous host; False on the first host."""
        if len(self.frames) == 1:
            return False
        self.frames.pop()
        self._sync_env()
        return True

    def _sync_env(self) -> None:
        self.env["PWD"] = self.cwd
        self.env["HOSTNAME"] = self.host.name
        oldpwd = self.frames[-1].oldpwd
        if oldpwd:
            self.env["OLDPWD"] = oldpwd

    def prompt(self) -> str:
        cwd = self.cwd
        if cwd == self.home or cwd.startswith(self.home + "/"):
            cwd = "~" + cwd[len(self.home):]
        return f"{USER}@{self.host.name}:{cwd}$ "

    # -- variables (the expansion environment) ------------------------------------
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
        if name in self.env:
            self.env[name] = value
        else:
            self.vars[name] = value

    def export(self, name: str, value: str | None = None) -> None:
        if value is None:
            value = self.vars.pop(name, self.env.get(name, ""))
        self.vars.pop(name, None)
        self.env[name] = value

    def unset(self, name: str) -> None:
        self.vars.pop(name, None)
        self.env.pop(name, None)

    def substitute(self, source: str) -> str:
        """Run ``$(...)``: the inner line's stdout (stderr still reaches the screen)."""
        out = Buffer()
        self.subshells += 1
        try:
            self._nested(self.run_script(parse(source), "", out, Terminal(self, "err")))
        except ExitShell:
            pass
        finally:
            self.subshells -= 1
        return out.text()

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

    def glob(self, pattern: str) -> list[str]:
        return glob_relative(pattern, self.cwd, self.fs.glob)

    def _nested(self, run: Run) -> int:
        """Run to completion inside another command (no chunk boundaries)."""
        if self._depth >= DEPTH_LIMIT:
            raise ShellSyntaxError("maximum nesting level exceeded")
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

    # -- output -------------------------------------------------------------------
    def emit(self, stream: str, text: str) -> None:
        if not text:
            return
        self._pending_size += len(text)
        if self._pending_size > OUTPUT_LIMIT * 2:
            raise OutputLimitExceeded(f"output limit of {OUTPUT_LIMIT} characters exceeded")
        self.pending.append((stream, text))

    def take_pending(self) -> list[tuple[str, str]]:
        """The output since the last chunk, consecutive writes to one stream joined."""
        taken, self.pending = self.pending, []
        merged: list[tuple[str, list[str]]] = []
        for stream, text in taken:
            if merged and merged[-1][0] == stream:
                merged[-1][1].append(text)
            else:
                merged.append((stream, [text]))
        return [(stream, "".join(parts)) for stream, parts in merged]

    # -- entry points ---------------------------------------------------------------
    def run_line(self, line: str) -> Run:
        """Run one input line; every error becomes a message and a status."""
        self._pending_size = 0
        self._commands = 0
        err = Terminal(self, "err")
        try:
            script = parse(line)
        except ShellSyntaxError as exc:
            err.write(f"bash: {exc.message}\n")
            self.last_status = 2
            return 2
        except RecursionError:
            err.write("bash: expression nesting too deep\n")
            self.last_status = 2
            return 2
        try:
            status = yield from self.run_script(script, "", Terminal(self, "out"), err)
        except ExitShell as stop:
            status = stop.status
            self.end_shell()
        except ShellSyntaxError as exc:
            # An expansion error ends the whole line, as in an interactive bash.
            self.emit("err", f"bash: {exc.message}\n")
            status = 1
        except OutputLimitExceeded as exc:
            self.pending.append(("err", f"bash: {exc}\n"))
            status = 1
        except RecursionError:
            self.pending.append(("err", "bash: expression nesting too deep\n"))
            status = 2
        self.last_status = status
        return status

    def run_argv(self, argv: list[str], host: Node | None = None, stdin: str = "",
                 env: dict[str, str] | None = None) -> Result:
        """Run one command to completion, capturing its output (for ``ctx.run``)."""
        out, err = Buffer(), Buffer()
        pushed = host is not None and host is not self.host
        if pushed:
            assert host is not None
            cwd = self.cwd if self.fs_for(host).isdir(self.cwd) else "/"
            self.frames.append(Frame(host, cwd))
            self._sync_env()
        try:
            status = self._nested(self.run_command_argv(argv, stdin, out, err, env or {}))
        except OutputLimitExceeded as exc:
            err.parts.append(f"{exc}\n")
            status = 1
        finally:
            if pushed:
                self.frames.pop()
                self._sync_env()
        return Result(out.text(), err.text(), status)

    # -- the tree -----------------------------------------------------------------
    def run_script(self, script: Script, stdin: str, out: Sink, err: Sink) -> Run:
        status = self.last_status
        for item in script.items:
            status = yield from self.run_and_or(item, stdin, out, err)
            self.last_status = status
        return status

    def run_and_or(self, node: AndOr, stdin: str, out: Sink, err: Sink) -> Run:
        status = yield from self.run_pipeline(node.first, stdin, out, err)
        for op, pipe in node.rest:
            self.last_status = status
            if (op == "&&") == (status == 0):
                status = yield from self.run_pipeline(pipe, stdin, out, err)
        return status

    def run_pipeline(self, pipe: Pipeline, stdin: str, out: Sink, err: Sink) -> Run:
        if pipe.timed:
            started = self.cluster.clock.elapsed
            status = yield from self._pipeline(pipe, stdin, out, err)
            minutes, seconds = divmod(self.cluster.clock.elapsed - started, 60)
            err.write(f"\nreal\t{int(minutes)}m{seconds:.3f}s\nuser\t0m0.000s\nsys\t0m0.000s\n")
            return status
        return (yield from self._pipeline(pipe, stdin, out, err))

    def _pipeline(self, pipe: Pipeline, stdin: str, out: Sink, err: Sink) -> Run:
        filters = self._line_filters(pipe)
        first = pipe.commands[0]
        if filters is not None and isinstance(first, Simple):
            status = yield from self._streaming_pipeline(first, filters, stdin, out, err)
            return (0 if status else 1) if pipe.negate else status
        data = stdin
        status = 0
        last = len(pipe.commands) - 1
        for i, command in enumerate(pipe.commands):
            if i == last:
                status = yield from self.run_command(command, data, out, err)
            else:
                buffer = Buffer()
                status = yield from self.run_command(command, data, buffer, buffer if pipe.stderr_too[i] else err)
                data = buffer.text()
        if pipe.negate:
            status = 0 if status else 1
        return status

    def _line_filters(self, pipe: Pipeline) -> list[list[str]] | None:
        """The argv of each later stage when all of them filter line by line (``tail -f log | grep x``).

        Such a pipeline streams: each chunk the first stage writes goes through the
        filters at once. None when any stage needs its whole input (``sort``,
        ``wc``, ``grep -c``), has redirections, or the first stage is not a plain command.
        """
        if len(pipe.commands) < 2 or any(pipe.stderr_too[:-1]):
            return None
        first = pipe.commands[0]
        if not isinstance(first, Simple) or not first.words:
            return None
        leader = self.commands.lookup(first.words[0].literal() or "")
        if leader is None or not leader.streams:
            return None
        filters: list[list[str]] = []
        for command in pipe.commands[1:]:
            if not isinstance(command, Simple) or command.redirects or command.assigns or not command.words:
                return None
            words = [w.literal() for w in command.words]
            if any(w is None for w in words):
                return None  # expansions: keep the general path, which expands once
            argv = [w for w in words if w is not None]
            stage = self.commands.lookup(argv[0])
            if stage is None or not stage.filters_lines or any(a in stage.whole_input_flags for a in argv[1:]):
                return None
            filters.append(argv)
        return filters

    def _streaming_pipeline(self, first: Simple, filters: list[list[str]], stdin: str, out: Sink, err: Sink) -> Run:
        """Run the first stage, passing each chunk of complete lines through the filters as it comes."""
        pipe = Buffer()
        run = self.run_command(first, stdin, pipe, err)
        pending = ""

        def flush(text: str) -> None:
            for argv in filters:
                if not text:
                    return
                stage = Buffer()
                self._nested(self.run_command_argv(argv, text, stage, err, {}))
                text = stage.text()
            if text:
                out.write(text)

        try:
            while True:
                try:
                    pause = next(run)
                except StopIteration as stop:
                    status = int(stop.value or 0)
                    break
                pending += pipe.text()
                pipe.parts.clear()
                cut = pending.rfind("\n") + 1
                if cut:
                    flush(pending[:cut])
                    pending = pending[cut:]
                yield pause
        finally:
            run.close()
        flush(pending + pipe.text())
        return status

    def run_command(self, command: Any, stdin: str, out: Sink, err: Sink) -> Run:
        self._commands += 1
        if self._commands > COMMAND_LIMIT:
            raise WorkLimitExceeded(f"stopped after running {COMMAND_LIMIT} commands in one line")
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
            err.write(f"bash: loop stopped after {LOOP_LIMIT} iterations\n")
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

    def expand(self, word: Word) -> list[str]:
        return expand_word(word, self)

    def redirect(self, redirects: list[Redirect], stdin: str, out: Sink,
                 err: Sink) -> tuple[str, Sink, Sink] | None:
        """Apply redirections left to right; None (after an error message) if one fails."""
        fds: dict[int, Sink] = {1: out, 2: err}
        for r in redirects:
            if r.op == "<<<":
                stdin = "".join(expand_word(r.target, self, split=False, glob=False)) + "\n"
                continue
            if r.op in ("<<", "<<-"):
                if r.unterminated:
                    err.write(f"bash: warning: here-document at line 1 delimited by end-of-file "
                              f"(wanted `{r.target.literal() or r.target.raw}')\n")
                stdin = self._heredoc(r.body or "", r.expand)
                continue
            targets = self.expand(r.target)
            if len(targets) != 1:
                err.write(f"bash: {r.target.raw}: ambiguous redirect\n")
                return None
            target = targets[0]
            fd = r.fd if r.fd is not None else (0 if r.op in ("<", "<&", "<>") else 1)
            try:
                if r.op in (">&", "<&") and (target.isdecimal() or target == "-"):
                    if target == "-":
                        fds[fd] = Null()
                    elif int(target) in fds:
                        fds[fd] = fds[int(target)]
                    elif int(target) != 0:
                        err.write(f"bash: {target}: Bad file descriptor\n")
                        return None
                elif r.op == "<":
                    stdin = self._read_input(target)
                elif r.op in ("&>", "&>>") or (r.op == ">&" and r.fd is None):
                    sink = self._open(target, append=r.op == "&>>")
                    fds[1] = fds[2] = sink
                elif r.op == "<>":
                    continue
                else:
                    fds[fd] = self._open(target, append=r.op == ">>")
            except FsError as exc:
                err.write(f"bash: {exc.path}: {exc.strerror}\n")
                return None
        return stdin, fds[1], fds[2]

    def _heredoc(self, body: str, expand: bool) -> str:
        """A here-document's text; with an unquoted delimiter, ``$VAR`` and ``$(...)`` expand as in quotes."""
        if not expand or not any(c in body for c in "$`\\"):
            return body
        words = [t for t in tokenize('"' + body.replace('"', '\\"') + '"') if isinstance(t, Word)]
        return "".join(expand_word(words[0], self, split=False, glob=False)) if words else body

    def _read_input(self, path: str) -> str:
        if path in ("/dev/null", "/dev/stdin"):
            return ""
        return self.fs.read(path)

    def _open(self, path: str, append: bool) -> Sink:
        specials: dict[str, Sink] = {"/dev/null": Null(), "/dev/stdout": Terminal(self, "out"),
                                     "/dev/stderr": Terminal(self, "err"), "/dev/tty": Terminal(self, "out")}
        if path in specials:
            return specials[path]
        fs = self.fs
        if not append or not fs.exists(path):
            fs.write(path, "")
        else:
            fs.write(path, "", append=True)
        return FileSink(fs, path)

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

    def run_source(self, text: str, ctx: Context) -> Run:
        """``source FILE``: run a file's lines in this shell, streaming through ``ctx``."""
        return (yield from self.run_script(parse(text), ctx.stdin, ContextSink(ctx, "out"), ContextSink(ctx, "err")))

    def run_streaming(self, argv: list[str], ctx: Context) -> Run:
        """Run a command inside another one (``sudo``, ``timeout``), streaming through its context."""
        return (yield from self.run_command_argv(argv, ctx.stdin, ContextSink(ctx, "out"), ContextSink(ctx, "err"), {}))

    def run_command_argv(self, argv: list[str], stdin: str, out: Sink, err: Sink,
                         env: dict[str, str]) -> Run:
        if argv[0] in self.aliases and self._alias_depth < 8:
            self._alias_depth += 1
            try:
                expanded = shlex.split(self.aliases[argv[0]]) + argv[1:]
            except ValueError:
                expanded = argv
            try:
                return (yield from self.run_command_argv(expanded or argv, stdin, out, err, env))
            finally:
                self._alias_depth -= 1
        name = argv[0]
        command = self.commands.lookup(name) if "/" not in name else None
        if command is None:
            return self._not_found(name, err)
        ctx = Context(argv=argv, stdin=stdin, env={**self.env, **env}, shell=self, isatty=isinstance(out, Terminal))
        status = 0
        try:
            outcome = command.main(ctx)
            if isinstance(outcome, Generator):
                while True:
                    try:
                        pause = next(outcome)
                    except StopIteration as stop:
                        status = int(stop.value or 0)
                        break
                    self._route(ctx, out, err)
                    yield max(0.0, float(pause or 0.0))
            else:
                status = int(outcome or 0)
        except CommandError as exc:
            self._route(ctx, out, err)
            if exc.message:
                err.write(exc.message if exc.message.endswith("\n") else exc.message + "\n")
            status = exc.status
        except OutputLimitExceeded as exc:
            ctx.take_output()
            err.write(f"{exc}\n")
            status = 1
        except (EmulatorError, ShellSyntaxError) as exc:
            self._route(ctx, out, err)
            err.write(f"bash: {name}: {exc}\n")
            status = 1
        except ExitShell:
            self._route(ctx, out, err)
            raise
        except Exception as exc:  # noqa: BLE001 - a bug in a command must not end the session
            ctx.take_output()
            err.write(f"bash: internal error in {name}: {type(exc).__name__}: {exc}\n")
            status = 1
        self._route(ctx, out, err)
        return status

    def _route(self, ctx: Context, out: Sink, err: Sink) -> None:
        for stream, text in ctx.take_output():
            try:
                (out if stream == "out" else err).write(text)
            except FsError as exc:
                err.write(f"bash: {exc.path}: {exc.strerror}\n")

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
