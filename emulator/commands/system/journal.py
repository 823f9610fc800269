"""What systemctl, journalctl and dmesg share: units by name, systemd's timestamps, journal lines, following.

Services come from ``node.hw.services`` (state, since, PID, journal) and the
kernel log from ``node.hw.kernel_log``; both are offsets on the simulated
clock, so a Fabric Manager failure, an Xid burst and a PCIe link warning read
the same instant in every tool. Layouts follow systemd 249 and util-linux
2.37 as shipped with Ubuntu 22.04.
"""

from __future__ import annotations

from collections.abc import Generator
from datetime import UTC, datetime

from emulator.cluster.hardware import Service
from emulator.cluster.model import Node
from emulator.cluster.services import journal_source, unit_journal
from emulator.commands.kit.command import Context
from emulator.limits import FOLLOW_WAIT_S, limit_reached

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def find_unit(node: Node, name: str) -> Service | None:
    unit = name[:-len(".service")] if name.endswith(".service") else name
    for key, service in node.hw.services.items():
        if unit in (key, service.name) or (unit == "sshd" and service.name == "ssh"):
            return service
    return None


def relative(delta_s: float) -> str:
    """systemd's relative timestamp: ``1 week 5 days ago``, ``2h 3min ago``, ``40s ago``."""
    d = int(max(0.0, delta_s))

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    day, week, month, year = 86400, 7 * 86400, 2629800, 31557600
    if d >= year:
        return f"{plural(d // year, 'year')} {plural(d % year // month, 'month')} ago"
    if d >= month:
        return f"{plural(d // month, 'month')} {plural(d % month // day, 'day')} ago"
    if d >= week:
        return f"{plural(d // week, 'week')} {plural(d % week // day, 'day')} ago"
    if d >= 2 * day:
        return f"{d // day} days ago"
    if d >= 25 * 3600:
        return f"1 day {(d - day) // 3600}h ago"
    if d >= 6 * 3600:
        return f"{d // 3600}h ago"
    if d >= 3600:
        return f"{d // 3600}h {d % 3600 // 60}min ago"
    if d >= 300:
        return f"{d // 60}min ago"
    if d >= 60:
        return f"{d // 60}min {d % 60}s ago"
    return f"{d}s ago"


def syslog_stamp(when: datetime) -> str:
    return f"{when:%b} {when.day:>2} {when:%H:%M:%S}"


def journal_entries(ctx: Context, node: Node, unit: str, service: Service) -> list[tuple[float, str]]:
    """(offset, formatted line) of a unit's journal up to now."""
    now = ctx.clock.elapsed
    out = []
    for offset, message in unit_journal(ctx.cluster, node, service):
        if offset <= now:
            when = ctx.clock.at(offset)
            out.append((offset, f"{syslog_stamp(when)} {node.name} {journal_source(unit, service, message)}: "
                                f"{message}"))
    return out


def follow_forever(ctx: Context, tool: str) -> Generator[float, None, int]:
    """Wait for new lines, as ``-f`` does, until interrupted, or until :data:`FOLLOW_WAIT_S` simulated
    seconds have passed: then ``tool`` says it stopped, and the status is 1."""
    for _ in range(FOLLOW_WAIT_S):
        yield 1.0
    ctx.err(limit_reached(f"{tool}: stopped following after {FOLLOW_WAIT_S} seconds") + "\n")
    return 1
