"""The base every emulated command stands on: the command entry, its context, and the command table.

A command is a table entry: a name, a one-line summary, a help section, the
facts the shell reads (whether it streams, whether a run is pure), and a
declared argument spec (:mod:`emulator.commands.kit.spec`) that parses the
flags, renders ``--help`` and ``man``, and feeds tab completion.

A command's :meth:`Command.execute` writes through the :class:`Context`
(``ctx.out``, ``ctx.err``) and returns its exit status. A command that streams
(``watch``, ``dmon``, ``tail -f``, a test sweep) is written as a generator: each
``yield seconds`` is a pause point where the simulated clock advances by that
many seconds, the output so far is flushed to the screen as one chunk, and an
interrupt (Ctrl-C) may stop it. Its ``return`` value is the exit status.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.cluster.accounts import LEARNER
from emulator.commands.kit.spec import ArgumentParser, Flag, HelpRequested, render_help, render_raw_help
from emulator.errors import CommandError, OutputLimitExceeded
from emulator.limits import OUTPUT_LIMIT, limit_reached

if TYPE_CHECKING:  # pragma: no cover - imports for type checkers only
    from emulator.cluster.clock import SimClock
    from emulator.cluster.model import Cluster, Node
    from emulator.vfs import FileSystem

#: What ``execute`` may return: a status, None (status 0), or a generator of pauses.
Outcome = int | None | Generator[float, None, int | None]


@dataclass
class Result:
    """What a command run through :meth:`Context.run` produced."""

    stdout: str
    stderr: str
    status: int


@dataclass
class Context:
    """Everything a command may touch while it runs.

    ``shell`` is the interpreter's state for this session (cwd, environment,
    current host, the session object). Commands use the properties below
    rather than reaching into it.
    """

    argv: list[str]
    stdin: str
    env: dict[str, str]
    shell: Any
    _out: list[str] = field(default_factory=list)
    _size: int = 0
    #: Whether stdout is the terminal (not a pipe or a file), as ``isatty(1)`` tells real tools.
    isatty: bool = False
    #: The user the command runs as (its real uid): the learner, or whom ``sudo -u`` named.
    #: Tools that check identity (Slurm's operator commands) read this, never ``$USER``.
    user: str = LEARNER

    # -- output ---------------------------------------------------------------
    def out(self, text: str) -> None:
        """Write to stdout."""
        self._write(("out", text))

    def err(self, text: str) -> None:
        """Write to stderr."""
        self._write(("err", text))

    def outln(self, text: str = "") -> None:
        """Write one line to stdout."""
        self.out(text + "\n")

    def verdict(self, text: str) -> None:
        """Write a verdict line to stdout; the screen shows it as one (chunk kind ``"ok"``), a pipe or file as text."""
        self._write(("ok", text))

    def _write(self, chunk: tuple[str, str]) -> None:
        """Queue output; past :data:`~emulator.limits.OUTPUT_LIMIT` keep what fits and stop the command."""
        stream, text = chunk
        room = OUTPUT_LIMIT - self._size
        self._size += len(text)
        if len(text) > room:
            if room > 0:
                self._out.append((stream, text[:room]))  # type: ignore[arg-type]
            raise OutputLimitExceeded(limit_reached(f"{self.argv[0]}: output stopped after {OUTPUT_LIMIT} characters"))
        self._out.append(chunk)  # type: ignore[arg-type]

    def take_output(self) -> list[tuple[str, str]]:
        """Hand over what was written since the last call (the shell flushes chunks)."""
        taken, self._out = self._out, []
        return taken  # type: ignore[return-value]

    # -- the world ------------------------------------------------------------
    @property
    def cluster(self) -> Cluster:
        return self.shell.cluster

    @property
    def host(self) -> Node:
        """The host this command runs on (changes with ``ssh``)."""
        return self.shell.host

    @property
    def clock(self) -> SimClock:
        return self.shell.cluster.clock

    @property
    def fs(self) -> FileSystem:
        """The virtual filesystem of the current host."""
        return self.shell.fs

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def commands(self) -> CommandTable:
        """Every command this shell knows (``help``, ``man``, ``which`` and ``type`` read it)."""
        return self.shell.commands

    @property
    def session(self) -> Any:
        """The :class:`emulator.session.Session` (lab progress, history)."""
        return self.shell.session

    def run(self, argv: list[str], host: Node | None = None, stdin: str = "",
            env: dict[str, str] | None = None, inherit: bool = True) -> Result:
        """Run another command, optionally on another host (``srun``, ``ssh host cmd``), as the same user.

        With ``inherit`` false it starts from a login's environment on that host, not this shell's
        exports, plus ``env`` (what ``mpirun`` gives a rank on another host: only its ``-x`` variables).
        """
        return self.shell.run_argv(argv, host=host, stdin=stdin, env=env, user=self.user, inherit=inherit)

    def fail(self, message: str, status: int = 1) -> CommandError:
        """Build the error to ``raise`` for a failure; the shell prints it to stderr."""
        return CommandError(message, status)


class Command:
    """A command table entry: the facts help, man, completion, dispatch and replay read.

    Subclass :class:`ParsedCommand` (flags declared as an argparse spec) or
    :class:`RawCommand` (the command reads ``ctx.argv`` itself and declares its
    flags in a table), never this class directly.
    """

    #: The name typed at the prompt.
    name: str = ""
    #: One line for ``help``, ``man`` and the command reference page.
    summary: str = ""
    #: Group heading in ``help`` and the command reference.
    section: str = "Shell"
    #: Longer description for ``man``/``--help`` (optional).
    description: str = ""
    #: Notes printed after the options (examples, deviations from the real tool).
    notes: str = ""
    #: Other names this command answers to (``more`` for ``less``).
    aliases: tuple[str, ...] = ()
    #: Exit status for bad usage (real tools differ: GNU tools use 2, many use 1).
    usage_status: int = 2
    #: Whether bash implements the name itself (``type`` says "shell builtin").
    builtin: bool = False
    #: Where the program is installed (``which``); None when bash alone implements it.
    directory: str | None = "/usr/bin"
    #: Whether it may pause between chunks of output (a follow, a monitor, a remote command):
    #: the shell then shows each chunk as it comes, through any line filters after it in the pipe.
    streams: bool = False
    #: Whether, after a streaming command in a pipe, it can filter each chunk's lines as they come.
    filters_lines: bool = False
    #: Flags that make a line filter need its whole input at once (counts, file lists, a match limit).
    whole_input_flags: frozenset[str] = frozenset()
    #: Whether every run only reads: no change to the model, the shell or the files, and no pause.
    reads_only: bool = False
    #: Whether it talks to GPUs (a driver tool, DCGM, nccl-tests): failing on a host without GPUs, the
    #: shell adds a terminal tip, once a session, that the GPUs are on the compute nodes.
    needs_gpus: bool = False

    def usage_error(self, message: str) -> str:
        """The message for bad flags, in the real tool's style; override per tool."""
        return f"{self.name}: {message}\nTry '{self.name} --help' for more information."

    def help_text(self) -> str:
        """``--help`` and ``man`` text."""
        raise NotImplementedError

    def option_strings(self) -> list[str]:
        """Every flag, for completion."""
        return []

    def alias_options(self) -> dict[str, list[str]]:
        """The flags of an alias that reads other options than the command's own (``more`` of ``less``)."""
        return {}

    def subcommands(self) -> list[str]:
        """Sub-command words (``topo``, ``diag``...), for completion."""
        return []

    def pure(self, words: list[str]) -> bool:
        """Whether running with these arguments changes nothing, so that a session restore may skip it.

        Each command that says so was read to change nothing in the model, the shell or the files,
        and never to pause (no follow, loop or pager); override for commands where it depends on the words.
        """
        return self.reads_only

    def leaves_model(self, words: list[str]) -> bool:
        """Whether running with these arguments changes nothing in the cluster model, though it may pause
        between chunks: the shell then keeps model answers within each stretch between its pauses
        (:mod:`emulator.cluster.memo`). Every pure run does; override for a command read to hold to it.
        """
        return self.pure(words)

    def path(self, name: str) -> str | None:
        """The file ``which`` finds for ``name`` (this command's name or an alias).

        None where no program of that name exists: a builtin bash alone
        implements, or another name bash gives a builtin (``:``, ``[``, ``.``, ``logout``).
        """
        if self.directory is None or (self.builtin and name != self.name):
            return None
        return f"{self.directory}/{name}"

    def main(self, ctx: Context) -> Outcome:
        """Run with ``ctx.argv``."""
        raise NotImplementedError


class ParsedCommand(Command):
    """A command whose flags argparse can express: :meth:`configure` declares them once, and the
    same spec parses them, renders ``--help`` and ``man``, and feeds completion."""

    #: Whether ``-h/--help`` is added to the spec automatically.
    add_help_flag: bool = True

    def __init__(self) -> None:
        self._parser: ArgumentParser | None = None

    def configure(self, parser: ArgumentParser) -> None:
        """Add this command's arguments to ``parser``."""

    def parser(self) -> ArgumentParser:
        if self._parser is None:
            parser = ArgumentParser(self)
            self.configure(parser)
            self._parser = parser
        return self._parser

    def help_text(self) -> str:
        return render_help(self)

    def option_strings(self) -> list[str]:
        return sorted(s for a in self.parser()._actions for s in a.option_strings)

    def subcommands(self) -> list[str]:
        words: list[str] = []
        for action in self.parser()._actions:
            if isinstance(action, argparse._SubParsersAction):
                words += list(action.choices)
        return words

    def parse(self, argv: Iterable[str]) -> argparse.Namespace:
        return self.parser().parse_args(list(argv))

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        raise NotImplementedError

    def main(self, ctx: Context) -> Outcome:
        """Parse ``ctx.argv[1:]`` and execute; ``--help`` prints the help text."""
        try:
            args = self.parse(ctx.argv[1:])
        except HelpRequested as shown:
            ctx.out(shown.text)
            return 0
        return self.execute(ctx, args)


class RawCommand(Command):
    """A command that reads ``ctx.argv`` itself, because its real syntax is more than argparse
    expresses (``echo -neE``, ``test`` expressions, ``nvidia-smi`` sub-commands, getopt clusters).

    Its flags are still declared, in :attr:`flags`, so that ``--help``, ``man`` and completion
    read the same table the command is checked against.
    """

    #: The flags the command accepts.
    flags: tuple[Flag, ...] = ()
    #: The sub-command words it accepts, for completion.
    words: tuple[str, ...] = ()
    #: The synopsis after the name (``[-neE] [STRING]...``).
    synopsis: str = ""

    def help_text(self) -> str:
        return render_raw_help(self, self.synopsis, self.flags)

    def option_strings(self) -> list[str]:
        return sorted(s for flag in self.flags for s in flag.strings())

    def subcommands(self) -> list[str]:
        return list(self.words)

    def execute(self, ctx: Context) -> Outcome:
        raise NotImplementedError

    def main(self, ctx: Context) -> Outcome:
        return self.execute(ctx)


class CommandTable:
    """Name (and alias) → command: the one table that dispatch, ``help``, ``man``, completion and replay read."""

    def __init__(self, commands: Iterable[Command]) -> None:
        self._by_name: dict[str, Command] = {}
        for command in commands:
            for name in (command.name, *command.aliases):
                if name in self._by_name:
                    raise RuntimeError(f"command {name!r} registered twice")
                self._by_name[name] = command

    def lookup(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def names(self) -> list[str]:
        """Every name and alias, sorted."""
        return sorted(self._by_name)

    def commands(self) -> list[Command]:
        """Every command once (aliases folded), sorted by section then name."""
        unique = {id(c): c for c in self._by_name.values()}
        return sorted(unique.values(), key=lambda c: (c.section, c.name))
