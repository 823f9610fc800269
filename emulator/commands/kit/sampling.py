"""Monitors that print a sample every interval until stopped (``nvidia-smi -l``, ``nvidia-smi dmon``, ``dcgmi dmon``,
``vmstat``, ``iostat``): how many samples they print here, and what they say when the limit, not the learner, ends
them (:data:`~emulator.limits.SAMPLE_LIMIT`)."""

from __future__ import annotations

from emulator.commands.kit.command import Context
from emulator.limits import SAMPLE_LIMIT, limit_reached


def samples(asked: int | None) -> int:
    """How many samples to print: ``asked`` (None: until interrupted), at most the limit."""
    return SAMPLE_LIMIT if asked is None else min(asked, SAMPLE_LIMIT)


def stopped(ctx: Context, prog: str, asked: int | None) -> int:
    """After the last sample: status 0, or 1 with the one line when the limit ended the monitor early."""
    if asked is not None and asked <= SAMPLE_LIMIT:
        return 0
    ctx.err(limit_reached(f"{prog}: stopped after {SAMPLE_LIMIT} samples") + "\n")
    return 1
