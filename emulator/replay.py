"""The journal a session's snapshot keeps, and how it is replayed: the snapshot read back, the lines a restore may leave out, and the journal kept bounded.

Everything is deterministic, so a snapshot is the journal of the lines run
(and where an interrupted line stopped), which a restore runs again with the
output discarded. Lines that provably change nothing (reads such as
``nvidia-smi`` or ``squeue``, see :func:`replay_free`) are not run again: only
their clock cost is counted, which keeps a reload after a long session fast.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, cast

from emulator.limits import CLOCK_LIMIT_S, HISTORY_NUMBER_LIMIT, LINE_LIMIT, STATUS_MAX
from emulator.shell import table
from emulator.shell.lexer import Op, Word, tokenize
from emulator.shell.parser import Redirect, Simple, parse

#: One line of the journal: its text, and the steps it ran before an interrupt (None: it ran whole).
Entry = tuple[str, int | None]


#: Version of the snapshot layout; a snapshot of another version is refused.
SCHEMA = 1
#: Lines kept in the history and in the snapshot journal.
HISTORY_LIMIT = 1_000


class SnapshotError(ValueError):
    """A snapshot that cannot be restored (unreadable, or another schema version)."""


@dataclass
class Snapshot:
    """What :func:`read_snapshot` found in a snapshot: the opening lab and seed, the journal, the history, the clock, ``$?``."""

    lab: str | None
    seed: int
    entries: list[Entry]
    history: list[str]
    history_base: int
    clock: float
    #: The last line's ``$?``; None in older snapshots, whose last line is replayed for it.
    status: int | None
    #: One sentence for each saved value that was out of range and fell back to its default.
    notices: list[str] = field(default_factory=list)

#: What the learner reads when a saved value is out of range, by value.
OUT_OF_RANGE = {
    "clock": "The saved clock was out of range, so it continues from the replayed lines.",
    "status": "The saved exit status was out of range, so the last line was run again for it.",
    "history_base": "The saved history numbering was out of range, so it starts again at 1.",
    "lines": "Saved lines longer than the input limit were left out.",
}


def read_snapshot(data: Any) -> Snapshot:
    """Check a snapshot's layout and read it (raises :class:`SnapshotError`); the journal and history
    keep their last :data:`HISTORY_LIMIT` lines.

    A value of the right type but out of range (a clock past :data:`~emulator.limits.CLOCK_LIMIT_S` or
    not finite, a ``$?`` outside 0-255, a history number past its limit, a line longer than an input line
    may be) falls back to its default, and the snapshot's ``notices`` say so.
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
    snapshot = Snapshot(lab, seed, entries, history[-HISTORY_LIMIT:], base, float(clock), status)
    _range_check(snapshot)
    return snapshot


def _range_check(snapshot: Snapshot) -> None:
    """Put each out-of-range value of ``snapshot`` back to its default, with a notice for each."""
    fallen: list[str] = []
    if not (math.isfinite(snapshot.clock) and 0 <= snapshot.clock <= CLOCK_LIMIT_S):
        snapshot.clock = 0.0  # restore only advances the clock: the replayed lines' clock stays
        fallen.append("clock")
    if snapshot.status is not None and not 0 <= snapshot.status <= STATUS_MAX:
        snapshot.status = None
        fallen.append("status")
    if not 0 <= snapshot.history_base <= HISTORY_NUMBER_LIMIT:
        snapshot.history_base = 0
        fallen.append("history_base")
    entries = [(line, stop) for line, stop in snapshot.entries if len(line) <= LINE_LIMIT]
    history = [line for line in snapshot.history if len(line) <= LINE_LIMIT]
    if len(entries) < len(snapshot.entries) or len(history) < len(snapshot.history):
        snapshot.entries, snapshot.history = entries, history
        fallen.append("lines")
    snapshot.notices = [OUT_OF_RANGE[name] for name in fallen]


def skippable(entries: list[Entry], index: int, status: int | None, aliases: dict[str, str]) -> bool:
    """Whether replaying journal entry ``index`` may be left out: it ran whole, changed nothing
    (:func:`replay_free`), and the line after it cannot read its ``$?``; the last line only when
    the snapshot recorded ``$?`` (``status``)."""
    line, stop = entries[index]
    if stop is not None or not replay_free(line, aliases):
        return False
    if index + 1 >= len(entries):
        return status is not None
    following = entries[index + 1][0]
    return replay_free(following, aliases) or not reads_status(following, aliases)

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


def compact(journal: list[Entry], limit: int) -> list[Entry]:
    """Keep the journal within ``limit``: drop read-only lines first, oldest first, then the oldest lines."""
    excess = len(journal) - limit
    if excess <= 0:
        return journal
    kept: list[Entry] = []
    for index, entry in enumerate(journal):
        if excess > 0 and index < len(journal) - 1 and replay_free(entry[0]):
            excess -= 1
            continue
        kept.append(entry)
    return kept[excess:] if excess > 0 else kept
