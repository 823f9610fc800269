"""The simulated clock: the only time the emulator knows.

It starts at a fixed instant given by the lab (never the host's wall clock)
and advances as commands run: every command costs a small, fixed amount of
simulated time, ``sleep`` and streaming commands advance it by what they wait.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

#: Where every cluster's clock starts unless its lab says otherwise.
DEFAULT_START = datetime(2026, 3, 11, 9, 0, 0, tzinfo=UTC)

#: Simulated seconds each command line costs (typing and running it).
COMMAND_COST_S = 2.0


class SimClock:
    """A monotonic simulated clock in UTC."""

    def __init__(self, start: datetime = DEFAULT_START, elapsed: float = 0.0) -> None:
        self.start = start
        self.elapsed = elapsed
        #: Model changes due at a later offset (a host finishing its boot): (offset s, action).
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def schedule(self, offset_s: float, action: Callable[[], None]) -> None:
        """Run ``action`` once the clock reaches ``offset_s`` (at once if it already has)."""
        self.timers.append((offset_s, action))
        self._fire()

    def _fire(self) -> None:
        while True:
            due = [t for t in self.timers if t[0] <= self.elapsed]
            if not due:
                return
            first = min(due, key=lambda t: t[0])
            self.timers.remove(first)
            first[1]()

    def now(self) -> datetime:
        """The current simulated instant (timezone-aware, UTC)."""
        return self.start + timedelta(seconds=self.elapsed)

    def advance(self, seconds: float) -> None:
        if seconds > 0:
            self.elapsed += seconds
            self._fire()

    def at(self, offset_s: float) -> datetime:
        """The instant ``offset_s`` seconds after the clock's start (may be negative)."""
        return self.start + timedelta(seconds=offset_s)

    def epoch(self) -> float:
        """Seconds since the Unix epoch, as ``date +%s`` prints."""
        return self.now().timestamp()
