"""``ipmitool sol activate``: the host's serial console as it scrolls, from :func:`emulator.cluster.lifecycle.console`."""

from __future__ import annotations

from collections.abc import Generator

from emulator.cluster import lifecycle
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context, Outcome

#: How long ``sol activate`` watches the console before it ends by itself: (chunks, seconds each).
SOL_CHUNKS, SOL_PAUSE_S = 4, 5.0


def sol(ctx: Context, node: Node, words: list[str]) -> Outcome:
    """``sol activate``: attach to the serial console (the other SOL commands print their usage)."""
    if words[:1] != ["activate"]:
        raise ctx.fail("SOL Commands: info [<channel number>]\n              activate [<usesolkeepalive|"
                       "usesolkeepalive>] [instance=<number>]\n              deactivate [instance=<number>]")
    return _activate(ctx, node)


def _activate(ctx: Context, node: Node) -> Generator[float, None, int]:
    """The serial console as it scrolls: new lines appear while the session is open."""
    ctx.outln("[SOL Session operational.  Use ~? for help]")
    shown: list[str] = []
    for _ in range(SOL_CHUNKS):
        lines = lifecycle.console(ctx.cluster, node)
        fresh = lines[len(shown):] if lines[:len(shown)] == shown else lines
        if fresh:
            if shown and shown[-1].endswith(" "):
                ctx.out("\n")
            ctx.out("\n".join(fresh) + ("" if fresh[-1].endswith(" ") else "\n"))
        shown = lines
        yield SOL_PAUSE_S
    if shown and shown[-1].endswith(" "):
        ctx.out("\n")
    ctx.outln("[terminated ipmitool]")
    return 0
