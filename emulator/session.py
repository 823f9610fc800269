"""The one API the browser worker and the command-line entry point use.

>>> s = Session()                      # the healthy sandbox, seed 0
>>> out, status = s.execute("hostname")
>>> out, status
('login01\\n', 0)

``run(line)`` returns a :class:`Run` whose ``step()`` hands out the output in
chunks (a streaming command pauses between chunks) until it returns None;
``interrupt()`` stops it at the next chunk boundary with ``^C`` and status
130. ``snapshot()`` gives a JSON-ready dict from which :meth:`Session.restore`
rebuilds the same session by replaying its journal (:mod:`emulator.replay`).
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field
from typing import Any

from emulator import labs
from emulator.cluster.clock import COMMAND_COST_S
from emulator.cluster.scheduler import compress_hostlist
from emulator.limits import CLOCK_LIMIT_S, RESTORE_TIME_LIMIT_S, limit_reached
from emulator.replay import HISTORY_LIMIT, SCHEMA, Entry, SnapshotError, compact, read_snapshot, skippable
from emulator.shell.completion import Completion, complete
from emulator.shell.history import check_length
from emulator.shell.history import expand as history_expand
from emulator.shell.interpreter import Shell
from emulator.shell.lexer import Op, ShellSyntaxError, tokenize
from emulator.shell.parser import parse

__all__ = ["Chunk", "Run", "Session", "SnapshotError"]

#: Steps a restored interrupted line may replay.
STEP_LIMIT = 10_000

#: The banner's last line, on every terminal.
DISCLAIMER = "Simulated outputs do not validate your environment."
#: The banner's width, as the lab commands wrap.
BANNER_WIDTH = 78


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
    #: The text the line put on the screen so far (up to :data:`~emulator.labs.objectives.SEARCHED`
    #: characters), read for the lab's evidence when it finishes.
    shown: list[str] = field(default_factory=list)
    shown_size: int = 0

    def _show(self, chunk: Chunk) -> Chunk:
        """Keep what ``chunk`` puts on the screen, for the evidence the lab's objectives look for."""
        if self.shown_size < labs.EVIDENCE_SEARCHED:
            text = chunk.text()
            self.shown.append(text)
            self.shown_size += len(text)
        return chunk

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
        if shell.cluster.clock.elapsed + pause > CLOCK_LIMIT_S:
            self._gen.close()
            pending = shell.take_pending()
            pending.append(("err", "bash: " + limit_reached("the simulated clock stopped at its limit of 1000 years") + "\n"))
            return self._finish(pending, 1)
        shell.cluster.clock.advance(pause)
        return self._show(Chunk(shell.take_pending(), pause))

    def _finish(self, out: list[tuple[str, str]], status: int) -> Chunk:
        self._finished = self.done = True
        self.status = status
        self.session.shell.last_status = status
        last = self._show(Chunk(out, 0.0, True, status))
        self.session._finished(self)
        return last


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
        self.journal: list[Entry] = []
        self.current: Run | None = None
        #: The lab commands' progress in each lab and seed run in this session (hints, attempts, solved), kept
        #: through ``lab reset`` and a switch to another lab and back; rebuilt by a restore's replay.
        self.lab_runs: dict[tuple[str, int], labs.Progress] = {}
        #: Labs whose reference procedure ``solutions --show`` printed in this session (a lab started later
        #: starts with that recorded in its progress).
        self.revealed: set[str] = set()
        #: Sentences for the learner about the restore that built this session (values out of range, lines
        #: not replayed); empty for a session that was not restored.
        self.notices: list[str] = []
        #: The terminal's width in characters as the page reports it (:meth:`resize`), None in the CLI.
        self.columns: int | None = None
        #: Labs this browser solved in any terminal, with the hints used (the page reports them; ``lab list``).
        self.browser_solves: dict[str, int] = {}
        #: What the last line asked of the front end, which holds the learner's files (``progress export``
        #: or ``progress import``): (action, path); the CLI or the page acts on it once the line is done.
        self.request: tuple[str, str] | None = None
        #: Terminals of other sessions merged in by ``progress import`` (:mod:`emulator.progressfile`), kept
        #: to be exported again, by (lab, seed).
        self.imported: dict[tuple[str, int], dict[str, Any]] = {}

    @property
    def lab_progress(self) -> labs.Progress | None:
        """The progress in the current lab and seed, once a lab command has started it."""
        return self.lab_runs.get((self.lab or labs.SANDBOX, self.seed))

    # -- running lines ------------------------------------------------------------
    def banner(self) -> str:
        """The first lines of the terminal, rendered from the lab and its cluster.

        In a lab: the lab's title (``lab`` reads the task, ``hint`` helps), where the learner is (the login
        node, which has no GPUs, and ``ssh`` to a compute node) and the nodes of the lab's training job.
        On the sandbox: ``help`` and ``lab list``. Both end with :data:`DISCLAIMER`.
        """
        lab = labs.get(self.lab)
        cluster = self.cluster
        nodes = [node.name for node in cluster.compute_nodes]
        job = next((j for j in cluster.slurm.jobs if cluster.training and j.job_id == cluster.training.job_id), None)
        first = (job.nodes if job and job.nodes else nodes or [cluster.login])[0]
        where = (f"You are on {cluster.login}, the login node, which has no GPUs; the compute nodes "
                 f"{compress_hostlist(nodes)} have them: ssh to one, as in ssh {first}.")
        if lab.is_sandbox:
            lines = ["Type help for the list of commands, and lab list for the labs (lab start ID starts one).",
                     where]
        else:
            lines = [f"Lab: {lab.title}. Type lab to read the task, and hint when you are stuck.", where]
            if job is not None and job.nodes:
                verb = "runs" if job.state == "RUNNING" else "ran"
                lines.append(f"Job {job.job_id} ({job.name}) {verb} on {compress_hostlist(job.nodes)}.")
        text = [wrapped for line in lines for wrapped in textwrap.wrap(line, BANNER_WIDTH)]
        return "\n".join([*text, DISCLAIMER])

    @property
    def prompt(self) -> str:
        return self.shell.prompt()

    def run(self, line: str) -> Run:
        """Start one input line; the caller steps it."""
        line = line.rstrip("\n")
        try:
            check_length(line)
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
        self._observe("".join(run.shown))
        if run.line.strip():
            self.journal.append((run.line, run.steps if run._interrupted else None))
            if len(self.journal) > HISTORY_LIMIT:
                self.journal = compact(self.journal, HISTORY_LIMIT * 9 // 10)
        if self.current is run:
            self.current = None

    def _observe(self, text: str) -> None:
        """Record the evidence of the current lab that a line's output showed (its objectives tick)."""
        if self.lab is None or not text:
            return
        lab = labs.get(self.lab)
        if lab.is_sandbox:
            return
        key = (lab.id, self.seed)
        progress = self.lab_runs.get(key)
        if progress is None:
            progress = self.lab_runs[key] = labs.Progress(*key)
        labs.observe(progress, lab, self.cluster.truth(), text)

    def objectives(self) -> list[labs.Objective]:
        """The current lab's objectives, ticked from the learner's output (none on the sandbox)."""
        lab = labs.get(self.lab)
        if lab.is_sandbox:
            return []
        progress = self.lab_progress
        typed = list(self.history)[max(0, (progress.since if progress else 0) - self.history_base):]
        return labs.objectives(lab, self.cluster.truth(), progress, typed, self.cluster.login)

    def resize(self, columns: int) -> None:
        """The terminal is ``columns`` characters wide: bash's ``COLUMNS`` (checkwinsize), which prose reads."""
        self.columns = max(20, min(int(columns), 1000))
        self.shell.vars["COLUMNS"] = str(self.columns)

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
        """Switch to another lab (``lab start``): its cluster and a fresh shell; the history and the labs'
        progress stay.

        The running line's output so far stays with the shell that :meth:`Run.step` holds.
        """
        self.lab, self.seed = lab, seed
        self.cluster = labs.cluster_for(lab, seed)
        self.shell = Shell(self, self.cluster)
        if self.columns is not None:
            self.resize(self.columns)

    def reset(self) -> None:
        """Fresh state for the lab and seed the session was opened with."""
        columns = self.columns
        self.__init__(*self.origin, faults=self.faults)  # type: ignore[misc]
        if columns is not None:
            self.resize(columns)

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
            # What each lab run's output showed: a restore skips read-only lines, so it is kept, not replayed.
            "seen": [[lab, seed, dict(progress.seen)] for (lab, seed), progress in self.lab_runs.items()
                     if progress.seen],
        }

    def _restore_seen(self, kept: Any) -> None:
        """Put back the evidence a snapshot kept (``seen``); anything malformed is left out."""
        for item in kept if isinstance(kept, list) else []:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                    and isinstance(item[1], int) and isinstance(item[2], dict)):
                continue
            lab, seed, seen = item
            progress = self.lab_runs.setdefault((lab, seed), labs.Progress(lab, seed))
            progress.seen.update({k: v for k, v in seen.items() if isinstance(k, str) and isinstance(v, str)})

    def skip(self, line: str) -> None:
        """Account for a line as :meth:`run` would, without running it: history, clock cost, journal."""
        run = self.run(line)
        run._finished = run.done = True
        self._finished(run)

    @classmethod
    def restore(cls, data: Any, fresh: Session | None = None) -> Session:
        """Rebuild a session from :meth:`snapshot` (raises :class:`SnapshotError`).

        ``fresh``, if given, is an unused session of the snapshot's lab and seed to replay onto.
        Replaying stops running lines after :data:`~emulator.limits.RESTORE_TIME_LIMIT_S` real seconds: the
        rest are only counted (history, clock cost) and leave the journal, and ``notices`` says how many.
        """
        snapshot = read_snapshot(data)
        lab, seed, entries, status = snapshot.lab, snapshot.seed, snapshot.entries, snapshot.status
        session = fresh if fresh is not None and fresh.origin == (lab, seed) and not fresh.journal else cls(lab, seed)
        deadline = time.perf_counter() + RESTORE_TIME_LIMIT_S
        unreplayed = 0
        for index, (line, stop) in enumerate(entries):
            if time.perf_counter() > deadline:
                # Counted (history, clock) but not run, and so left out of the journal: a later restore
                # rebuilds the session as it is now, and does not spend the time again.
                unreplayed += 1
                session.skip(line)
                if session.journal and session.journal[-1][0] == line:
                    session.journal.pop()
                continue
            if skippable(entries, index, status, session.shell.aliases):
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
        session._restore_seen(data.get("seen"))
        session.history = snapshot.history
        session.history_base = snapshot.history_base
        session.cluster.clock.advance(snapshot.clock - session.cluster.clock.elapsed)
        session.notices = list(snapshot.notices)
        if unreplayed:
            if status is not None:
                session.shell.last_status = status
            session.notices.append(f"The saved session took more than {RESTORE_TIME_LIMIT_S:g} seconds to replay, "
                                   f"so its last {unreplayed} lines were not run again.")
        return session
