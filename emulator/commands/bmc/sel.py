"""``ipmitool sel``: the BMC's System Event Log, as logged up to the simulated instant."""

from __future__ import annotations

from emulator.cluster.hardware import BMC, SelEntry
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context

#: SEL capacity as ``sel info`` reports it (allocation units of 18 bytes).
SEL_UNITS = 3639


def _entries(ctx: Context, bmc: BMC) -> list[SelEntry]:
    """SEL records logged up to now, oldest first."""
    now = ctx.clock.elapsed
    return sorted((e for e in bmc.sel if e.offset_s <= now), key=lambda e: e.offset_s)


def sel(ctx: Context, node: Node, words: list[str]) -> int:
    """``sel [info]``, ``sel list|elist [first|last N]``, ``sel time get``, ``sel clear``."""
    bmc = node.bmc
    assert bmc is not None
    cluster = ctx.cluster
    action = words[0] if words else "info"
    entries = _entries(ctx, bmc)
    if action in ("list", "elist"):
        if not entries:
            ctx.outln("SEL has no entries")
            return 0
        numbered = list(enumerate(entries, start=1))
        if len(words) >= 3 and words[1] in ("first", "last"):
            if not words[2].isdecimal():
                raise ctx.fail(f"Invalid count: {words[2]}")
            count = int(words[2])
            numbered = numbered[:count] if words[1] == "first" else numbered[-count:] if count else []
        for i, entry in numbered:
            at = cluster.clock.at(entry.offset_s)
            sensor = entry.sensor
            if action == "elist" and entry.name:
                sensor = f"{entry.sensor.split(' #')[0]} {entry.name}"
            ctx.outln(f"{i:4x} | {at:%m/%d/%Y} | {at:%H:%M:%S} | {sensor} | {entry.event} | {entry.direction}")
        return 0
    if action == "info":
        used = len(entries)
        last_add = cluster.clock.at(entries[-1].offset_s) if entries else None
        last_del = cluster.clock.at(entries[0].offset_s) if entries else None
        ctx.out(
            "SEL Information\n"
            "Version          : 1.5 (v1.5, v2 compliant)\n"
            f"Entries          : {used}\n"
            f"Free Space       : {(SEL_UNITS - used) * 18} bytes\n"
            f"Percent Used     : {used * 100 // SEL_UNITS}%\n"
            f"Last Add Time    : {f'{last_add:%m/%d/%Y %H:%M:%S}' if last_add else 'Not Available'}\n"
            f"Last Del Time    : {f'{last_del:%m/%d/%Y %H:%M:%S}' if last_del else 'Not Available'}\n"
            "Overflow         : false\n"
            "Supported Cmds   : 'Reserve' 'Get Alloc Info' \n"
            f"# of Alloc Units : {SEL_UNITS}\n"
            "Alloc Unit Size  : 18\n"
            f"# Free Units     : {SEL_UNITS - used}\n"
            f"Largest Free Blk : {SEL_UNITS - used}\n"
            "Max Record Size  : 18\n"
        )
        return 0
    if action == "time" and words[1:2] == ["get"]:
        ctx.outln(f"{cluster.clock.now():%m/%d/%Y %H:%M:%S}")
        return 0
    if action == "clear":
        now = ctx.clock.elapsed
        bmc.sel[:] = [e for e in bmc.sel if e.offset_s > now]
        bmc.sel.insert(0, SelEntry(now, "Event Logging Disabled #0x0f", "Log area reset/cleared", name="SEL Status"))
        ctx.outln("Clearing SEL.  Please allow a few seconds to erase.")
        return 0
    raise ctx.fail(f"Invalid SEL command: {action}")
