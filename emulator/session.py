"""The one API the browser worker and the command-line entry point use.

>>> s = Session()                      # the healthy sandbox, seed 0
>>> out, status = s.execute("hostname")
>>> out, status
('login01\\n', 0)

``run(line)`` returns a :class:`Run` whose ``step()`` hands out the output in
chunks (a streaming command pauses between chunks) until it returns None;
``interrupt()`` stops it at the next chunk boundary with ``^C`` and status
130. ``snapshot()`` gives a JSON-ready dict from which :meth:`Session.restore`
rebuilds the same session: everything is deterministic, so the snapshot is a
journal of the lines run (and where an interrupted line stopped), replayed
with its output discarded. Lines that provably change nothing (reads such as
``nvidia-smi`` or ``squeue``, see :func:`replay_free`) are not run again: only
their clock cost is counted, which keeps a reload after a long session fast.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, cast

from emulator import labs
from emulator.cluster.clock import COMMAND_COST_S
from emulator.shell import table
from emulator.shell.completion import Completion, complete
from emulator.shell.history import expand as history_expand
from emulator.shell.interpreter import Shell
from emulator.shell.lexer import Op, ShellSyntaxError, Word, tokenize
from emulator.shell.parser import Redirect, Simple, parse

#: Version of the snapshot layout; a snapshot of another version is refused.
SCHEMA = 1
#: Lines kept in the history and in the snapshot journal.
HISTORY_LIMIT = 1_000
#: Steps a restored interrupted line may replay.
STEP_LIMIT = 10_000

BANNER = ("Type help for the full list of commands, or solutions for reference procedures.\n"
          "Simulated outputs do not validate your environment.")


class SnapshotError(ValueError):
    """A snapshot that cannot be restored (unreadable, or another schema version)."""


@dataclass
class Chunk:
    """Output written before a pause: ``out`` is [(stream, text)], ``pause`` simulated seconds."""

    out: list[tuple[str, str]]
    pause: float = 0.0
    done: bool = False
    status: int | None = None

    def text(self) -> str:
        return "".join(text for _, text in self.out)


@dataclass
class Run:
    """One input line being run; call :meth:`step` until it returns None."""

    session: Session
    line: str
    #: The shell the line runs in (``lab start`` swaps the session's shell mid-line).
    shell: Shell
    _gen: Any = None
    status: int | None = None
    done: bool = False
    steps: int = 0
    _interrupted: bool = False
    _finished: bool = field(default=False, repr=False)
    #: Output shown before the line's own (the echo of a history expansion, or its error).
    preamble: list[tuple[str, str]] = field(default_factory=list)
    #: Set when the line fails before it runs (an unknown history event).
    failed: int | None = None

    def interrupt(self) -> None:
        """Stop at the next chunk boundary (``^C``, status 130)."""
        if not self.done:
            self._interrupted = True

    def step(self) -> Chunk | None:
        if self._finished:
            return None
        shell = self.shell
        if self._interrupted:
            if self._gen is not None:
                self._gen.close()
            shell.take_pending()
            return self._finish([("out", "^C\n")], 130)
        if self.failed is not None:
            return self._finish(self.preamble, self.failed)
        if self._gen is None:
            self._gen = shell.run_line(self.line)
            shell.pending[:0] = self.preamble
        try:
            pause = next(self._gen)
        except StopIteration as stop:
            return self._finish(shell.take_pending(), int(stop.value or 0))
        except Exception as exc:  # noqa: BLE001 - the last guard: never a traceback on screen
            pending = shell.take_pending()
            pending.append(("err", f"bash: internal error: {type(exc).__name__}: {exc}\n"))
            return self._finish(pending, 1)
        self.steps += 1
        pause = max(0.0, float(pause or 0.0))
        shell.cluster.clock.advance(pause)
        return Chunk(shell.take_pending(), pause)

    def _finish(self, out: list[tuple[str, str]], status: int) -> Chunk:
        self._finished = self.done = True
        self.status = status
        self.session.shell.last_status = status
        self.session._finished(self)
        return Chunk(out, 0.0, True, status)


class Session:
    """A learner's terminal: one cluster, one shell, a history."""

    def __init__(self, lab: str | None = None, seed: int = 0, faults: bool = True) -> None:
        """A session in ``lab`` (None: the sandbox) at ``seed``; ``faults=False`` opens the lab's healthy twin."""
        #: The lab and seed the session was opened with (``lab start`` may switch later).
        self.origin = (lab, seed)
        self.faults = faults
        self.lab = lab
        self.seed = seed
        self.cluster = labs.cluster_for(lab, seed, faults)
        self.shell = Shell(self, self.cluster)
        self.history: list[str] = []
        #: Lines dropped from the front of the history (numbering continues after them).
        self.history_base = 0
        #: Lines run since the session opened, for snapshots: (line, steps before an interrupt or None).
        self.journal: list[tuple[str, int | None]] = []
        self.current: Run | None = None
        #: The lab commands' progress in the current lab (hints used, findings, solved).
        self.lab_progress: Any = None

    # -- running lines ------------------------------------------------------------
    def banner(self) -> str:
        return BANNER

    @property
    def prompt(self) -> str:
        return self.shell.prompt()

    def run(self, line: str) -> Run:
        """Start one input line; the caller steps it."""
        line = line.rstrip("\n")
        try:
            line, expanded = history_expand(line, self.history, self.history_base)
        except ShellSyntaxError as exc:
            self.current = Run(self, "", self.shell, preamble=[("err", f"bash: {exc.message}\n")], failed=1)
            return self.current
        except Exception as exc:  # noqa: BLE001 - the last guard: never a traceback on screen
            message = f"bash: internal error: {type(exc).__name__}: {exc}\n"
            self.current = Run(self, "", self.shell, preamble=[("err", message)], failed=1)
            return self.current
        if line.strip():
            self.history.append(line)
            if len(self.history) > HISTORY_LIMIT:
                self.history_base += len(self.history) - HISTORY_LIMIT
                del self.history[:-HISTORY_LIMIT]
            self.cluster.clock.advance(COMMAND_COST_S)
        self.current = Run(self, line, self.shell, preamble=[("out", line + "\n")] if expanded else [])
        return self.current

    def execute(self, line: str) -> tuple[str, int]:
        """Run a line to completion: (stdout and stderr text in order, status)."""
        run = self.run(line)
        parts: list[str] = []
        while (chunk := run.step()) is not None:
            parts.append(chunk.text())
        return "".join(parts), run.status or 0

    def _finished(self, run: Run) -> None:
        if run.line.strip():
            self.journal.append((run.line, run.steps if run._interrupted else None))
            if len(self.journal) > HISTORY_LIMIT:
                self.journal = compact(self.journal, HISTORY_LIMIT * 9 // 10)
        if self.current is run:
            self.current = None

    @staticmethod
    def incomplete(text: str) -> bool:
        """Whether ``text`` needs more lines, as bash would prompt ``> `` for them
        (an open quote, a trailing ``|`` or ``&&``, a ``for`` without ``done``, a final backslash)."""
        if text.endswith("\\") and not text.endswith("\\\\"):
            return True
        try:
            if any(isinstance(t, Op) and t.unterminated for t in tokenize(text)):
                return True
            parse(text)
        except ShellSyntaxError as exc:
            return exc.message.startswith(("unexpected EOF", "syntax error: unexpected end of file"))
        except RecursionError:
            return False
        return False

    def complete(self, line: str) -> Completion:
        """Completions of the last word of ``line``."""
        return complete(self.shell, line)

    # -- state --------------------------------------------------------------------
    def start_lab(self, lab: str | None, seed: int) -> None:
        """Switch to another lab (``lab start``): its cluster and a fresh shell; the history stays.

        The running line's output so far stays with the shell that :meth:`Run.step` holds.
        """
        self.lab, self.seed = lab, seed
        self.cluster = labs.cluster_for(lab, seed)
        self.shell = Shell(self, self.cluster)
        self.lab_progress = None

    def reset(self) -> None:
        """Fresh state for the lab and seed the session was opened with."""
        self.__init__(*self.origin, faults=self.faults)  # type: ignore[misc]

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready state: the opening lab and seed, the journal of lines, the history, the clock, ``$?``."""
        journal = list(self.journal)
        if self.current is not None and not self.current.done and self.current.steps:
            journal.append((self.current.line, self.current.steps))
        return {
            "schema": SCHEMA,
            "lab": self.origin[0],
            "seed": self.origin[1],
            "journal": [[line, stop] for line, stop in journal],
            "history": list(self.history),
            "history_base": self.history_base,
            "clock": self.cluster.clock.elapsed,
            "status": self.shell.last_status,
        }

    def skippable(self, entries: list[tuple[str, int | None]], index: int, status: int | None = None) -> bool:
        """Whether replaying journal entry ``index`` may be left out: it ran whole, changed nothing
        (:func:`replay_free`), and the line after it cannot read its ``$?``; the last line only when
        the snapshot recorded ``$?`` (``status``)."""
        line, stop = entries[index]
        if stop is not None or not replay_free(line, self.shell.aliases):
            return False
        if index + 1 >= len(entries):
            return status is not None
        following = entries[index + 1][0]
        return replay_free(following, self.shell.aliases) or not reads_status(following, self.shell.aliases)

    def skip(self, line: str) -> None:
        """Account for a line as :meth:`run` would, without running it: history, clock cost, journal."""
        run = self.run(line)
        run._finished = run.done = True
        self._finished(run)

    @classmethod
    def restore(cls, data: Any, fresh: Session | None = None) -> Session:
        """Rebuild a session from :meth:`snapshot` (raises :class:`SnapshotError`).

        ``fresh``, if given, is an unused session of the snapshot's lab and seed to replay onto.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise SnapshotError("snapshot from another version")
        lab, seed, journal = data.get("lab"), data.get("seed"), data.get("journal")
        history, base, clock = data.get("history", []), data.get("history_base", 0), data.get("clock", 0.0)
        status = data.get("status")  # absent from older snapshots: their last line is replayed for its $?
        if not (lab is None or isinstance(lab, str)) or not isinstance(seed, int) or not isinstance(journal, list) \
                or not isinstance(history, list) or not all(isinstance(h, str) for h in history) \
                or not isinstance(base, int) or not isinstance(clock, (int, float)) \
                or not (status is None or isinstance(status, int)):
            raise SnapshotError("unreadable snapshot")
        entries = []
        for entry in journal[-HISTORY_LIMIT:]:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and (entry[1] is None or isinstance(entry[1], int))):
                raise SnapshotError("unreadable snapshot")
            entries.append((entry[0], entry[1]))
        session = fresh if fresh is not None and fresh.origin == (lab, seed) and not fresh.journal else cls(lab, seed)
        for index, (line, stop) in enumerate(entries):
            if session.skippable(entries, index, status):
                session.skip(line)
                if index + 1 == len(entries) and status is not None:
                    session.shell.last_status = status
                continue
            run = session.run(line)
            if stop is not None and stop <= 0:
                run.interrupt()
            steps = 0
            while run.step() is not None:
                steps += 1
                if stop is not None and steps >= min(stop, STEP_LIMIT):
                    run.interrupt()
        session.history = history[-HISTORY_LIMIT:]
        session.history_base = max(0, base)
        session.cluster.clock.advance(float(clock) - session.cluster.clock.elapsed)
        return session


#: Words after which a line may read the previous line's status (``$?``) or run shell text that could.
_STATUS_READERS = frozenset({"exit", "logout", "return", "source", ".", "eval", "watch", "ssh", "sbatch", "srun",
                             "salloc", "sudo", "timeout", "env", "xargs", "bash", "sh", "exec", "command"})


@functools.lru_cache(maxsize=4096)
def _commands(line: str) -> tuple[list[Simple], frozenset[str]] | None:
    """The simple commands of a line of plain pipelines and lists, and all its words; None for anything else.

    Cached: a long session repeats the same few lines, and a restore asks about each line twice.
    """
    if "!" in line or line.lstrip().startswith("^"):
        return None  # a history expansion could make it another line
    try:
        tokens, script = tokenize(line), parse(line)
    except Exception:  # noqa: BLE001 - a line that does not parse is not skipped
        return None
    if any(isinstance(t, Op) and t.kind == "&" for t in tokens):
        return None
    commands: list[Simple] = []
    for item in script.items:
        for pipe in [item.first, *(p for _, p in item.rest)]:
            if pipe.negate or pipe.timed:
                return None
            for command in pipe.commands:
                if not isinstance(command, Simple):
                    return None
                commands.append(command)
    return (commands, frozenset(t.raw for t in tokens if isinstance(t, Word))) if commands else None


def _harmless(redirect: Redirect) -> bool:
    target = redirect.target.literal()
    if redirect.op == ">&":
        return target is not None and target.isdecimal()
    return redirect.op in (">", ">>", ">|", "&>", "&>>") and target == "/dev/null"


@functools.lru_cache(maxsize=4096)
def _replay_free_names(line: str) -> frozenset[str] | None:
    """The command names of a line :func:`replay_free` accepts as long as none is aliased, else None."""
    parsed = _commands(line)
    if parsed is None:
        return None
    names = set()
    for command in parsed[0]:
        words = [w.literal() for w in command.words]
        if command.assigns or not words or any(w is None for w in words):
            return None
        if not all(_harmless(r) for r in command.redirects):
            return None
        name, rest = cast("str", words[0]), cast("list[str]", words[1:])
        entry = table.commands().lookup(name)
        if entry is None or not entry.pure(rest):
            return None
        names.add(name)
    return frozenset(names)


def replay_free(line: str, aliases: dict[str, str] | None = None) -> bool:
    """Whether running ``line`` changes nothing but the clock's per-line cost and ``$?``.

    Every command says it is pure for its words (:meth:`~emulator.commands.kit.command.Command.pure`; none aliased), every word is
    literal (no expansion, substitution or arithmetic), there are no assignments, and output goes to
    the terminal, a pipe or /dev/null only.
    """
    names = _replay_free_names(line)
    return names is not None and not any(name in (aliases or {}) for name in names)


def reads_status(line: str, aliases: dict[str, str] | None = None) -> bool:
    """Whether ``line`` may read the status the line before it left (conservative: True when unsure)."""
    parsed = _commands(line)
    if "$" in line or "`" in line or parsed is None:
        return True
    return any(w in _STATUS_READERS or w in (aliases or {}) for w in parsed[1])


def compact(journal: list[tuple[str, int | None]], limit: int) -> list[tuple[str, int | None]]:
    """Keep the journal within ``limit``: drop read-only lines first, oldest first, then the oldest lines."""
    excess = len(journal) - limit
    if excess <= 0:
        return journal
    kept: list[tuple[str, int | None]] = []
    for index, entry in enumerate(journal):
        if excess > 0 and index < len(journal) - 1 and replay_free(entry[0]):
            excess -= 1
            continue
        kept.append(entry)
    return kept[excess:] if excess > 0 else kept
