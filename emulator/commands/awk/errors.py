"""awk's errors, the checks against the terminal's limits that raise them, and the signals that end a rule, a loop or the whole program early."""

from __future__ import annotations

from emulator.limits import AWK_FIELD_LIMIT, VALUE_LIMIT, limit_reached


class AwkError(Exception):
    """A syntax or run-time error; ``message`` is the text after ``awk: ``."""


class AwkLimit(AwkError):
    """A limit of the terminal stopped the program (:mod:`emulator.limits`); awk says so in one line."""


def check_string(size: int) -> None:
    """Stop a program about to make a string past :data:`~emulator.limits.VALUE_LIMIT` characters."""
    if size > VALUE_LIMIT:
        raise AwkLimit(limit_reached(f"run time error: string longer than {VALUE_LIMIT} characters"))


def check_fields(count: int) -> None:
    """Stop a program about to make more than :data:`~emulator.limits.AWK_FIELD_LIMIT` fields or elements."""
    if count > AWK_FIELD_LIMIT:
        raise AwkLimit(limit_reached(f"run time error: more than {AWK_FIELD_LIMIT} fields"))


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
