"""awk's errors, and the signals that end a rule, a loop or the whole program early."""

from __future__ import annotations


class AwkError(Exception):
    """A syntax or run-time error; ``message`` is the text after ``awk: ``."""


class Next(Exception):
    """``next``: the rest of the rules are skipped for this record."""


class Exit(Exception):
    """``exit [status]``: no more records; the ``END`` blocks still run (an ``exit`` there ends them too)."""

    def __init__(self, status: int) -> None:
        self.status = status


class Break(Exception):
    """``break``: the innermost loop ends."""


class Continue(Exception):
    """``continue``: the innermost loop goes on to its next iteration."""
