"""``journalctl`` (systemd 249): the journal of the host's units and kernel, by unit, boot, time and priority.

``-b`` takes an optional offset or boot ID, which getopt cannot express, so
the command lifts it out of argv before parsing; ``-f`` follows until
interrupted.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from emulator.cluster.boots import boot_id, boot_offset, boot_starts, journal_kernel_log, kernel_events
from emulator.cluster.model import Node
from emulator.cluster.services import journal_source, unit_journal
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.commands.system.journal import EPOCH, find_unit, follow_forever, syslog_stamp
from emulator.commands.system.options import gnu_getopt

#: Weekday names systemd accepts before a date (parse_timestamp in time-util.c), by their first three letters.
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_since(ctx: Context, text: str) -> float:
    """A journalctl time spec (systemd.time(7), "PARSING TIMESTAMPS") → offset on the simulated clock.

    Accepts now, today, yesterday, tomorrow, @EPOCH, relative spans (-1h, "30 min ago"), and
    [WEEKDAY] YYYY-MM-DD [HH:MM[:SS[.FRAC]]] or HH:MM[:SS] with an optional trailing " UTC": the
    page accepts no time zone "unless it is given as the literal string UTC" (or the local zone,
    which on these hosts is UTC too).
    """
    now = ctx.clock.now()
    word = text.strip()
    if word.endswith(" UTC"):
        word = word[:-4].rstrip()
    if word == "now":
        return ctx.clock.elapsed
    if word in ("today", "yesterday", "tomorrow"):
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        day += timedelta(days={"today": 0, "yesterday": -1, "tomorrow": 1}[word])
        return (day - ctx.clock.start).total_seconds()
    if word.startswith("@") and word[1:].replace(".", "", 1).isdecimal():
        return (EPOCH + timedelta(seconds=float(word[1:])) - ctx.clock.start).total_seconds()
    units = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60,
             "minute": 60, "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400,
             "days": 86400}
    ago = word.endswith(" ago")
    if ago or (word[:1] in "-+" and word[1:]):
        body = word[:-4].strip() if ago else word[1:]
        num = "".join(ch for ch in body if ch.isdecimal())
        unit = body[len(num):].strip() or "s"
        if num and body.startswith(num) and unit in units:
            sign = -1 if ago or word[0] == "-" else 1
            return ctx.clock.elapsed + sign * int(num) * units[unit]
    weekday, _, rest = word.partition(" ")
    named = weekday.lower()[:3] if rest and weekday.isalpha() else ""
    if named:
        word = rest.strip()
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M"):
        try:
            parsed = datetime.strptime(word, fmt)
        except ValueError:
            continue
        if fmt.startswith("%H"):
            parsed = parsed.replace(year=now.year, month=now.month, day=now.day)
        if named and (named not in WEEKDAYS or WEEKDAYS.index(named) != parsed.weekday()):
            break   # a weekday that does not match the date fails, as systemd's does
        return (parsed.replace(tzinfo=now.tzinfo) - ctx.clock.start).total_seconds()
    raise ctx.fail(f"Failed to parse timestamp: {text}\n", 1)


class Journalctl(RawCommand):
    name = "journalctl"
    streams = True
    summary = "Query the systemd journal"
    section = "System"

    flags = (
        Flag("-h", "--help", "", "show this help text"),
        Flag("-u", "--unit", "UNIT", "show logs from the specified unit"),
        Flag("-k", "--dmesg", "", "show kernel message log from the current boot"),
        Flag("-b", "--boot", "[OFFSET|ID]", "show the current boot, or the one given"),
        Flag("", "--list-boots", "", "show terse information about recorded boots"),
        Flag("-n", "--lines", "N", "number of journal entries to show"),
        Flag("-S", "--since", "DATE", "show entries not older than the specified date"),
        Flag("-U", "--until", "DATE", "show entries not newer than the specified date"),
        Flag("-p", "--priority", "PRIORITY", "show entries with the specified priority (emerg..debug, 0-7)"),
        Flag("-r", "--reverse", "", "show the newest entries first"),
        Flag("-o", "--output", "FORMAT", "change journal output mode (short, short-iso, short-precise, cat, json)"),
        Flag("-e", "--pager-end", "", "jump to the end: the last 1000 entries"),
        Flag("-x", "--catalog", "", "add message explanations where available"),
        Flag("-f", "--follow", "", "follow the journal"),
        Flag("", "--no-pager", "", "do not pipe output into a pager"),
        Flag("", "--no-hostname", "", "suppress output of hostname field"),
        Flag("", "--utc", "", "express time in Coordinated Universal Time (UTC)"),
        Flag("", "--all", "", "show all fields, including long and unprintable"),
    )
    synopsis = "[OPTIONS...] [MATCHES...]"

    def execute(self, ctx: Context) -> Outcome:
        argv = list(ctx.argv[1:])
        boot_arg: str | None = None
        for i, word in enumerate(argv):
            # -b takes an optional argument (an offset or a boot ID), as getopt's "b::" would.
            if word in ("-b", "--boot") and i + 1 < len(argv) and _boot_ref(argv[i + 1]):
                boot_arg = argv.pop(i + 1)
            elif word.startswith("--boot="):
                boot_arg, argv[i] = word[7:], "--boot"
            elif word.startswith("-b") and len(word) > 2 and _boot_ref(word[2:]):
                boot_arg, argv[i] = word[2:], "-b"
            else:
                continue
            break
        opts, rest = gnu_getopt(ctx, argv, self.flags)
        if any(k in ("-h", "--help") for k, _ in opts):
            ctx.out(self.help_text())
            return 0
        node = ctx.host
        starts = boot_starts(ctx.cluster, node)
        if any(k == "--list-boots" for k, _ in opts):
            return _list_boots(ctx, node, starts)
        interval: tuple[float, float] | None = None
        if any(k in ("-b", "--boot") for k, _ in opts):
            index = _boot_index(ctx, node, starts, boot_arg or "0")
            if index is None:
                raise ctx.fail(f"Data from the specified boot ({boot_arg}) is not available: No such boot ID in "
                               "journal\n", 1)
            interval = (starts[index], starts[index + 1] if index + 1 < len(starts) else ctx.clock.elapsed)
        units: list[str] = []
        kernel, reverse, limit = False, False, None
        since, until = None, None
        priority = None
        output = "short"
        follow = any(k in ("-f", "--follow") for k, _ in opts)
        if follow:
            limit = 10
        for key, value in opts:
            if key in ("-u", "--unit"):
                units.append(value[:-8] if value.endswith(".service") else value)
            elif key in ("-k", "--dmesg"):
                kernel = True
            elif key in ("-n", "--lines"):
                if not value.isdecimal():
                    raise ctx.fail(f"Failed to parse lines '{value}'\n", 1)
                limit = int(value)
            elif key in ("-e", "--pager-end") and limit is None:
                limit = 1000
            elif key in ("-S", "--since"):
                since = parse_since(ctx, value)
            elif key in ("-U", "--until"):
                until = parse_since(ctx, value)
            elif key in ("-r", "--reverse"):
                reverse = True
            elif key in ("-p", "--priority"):
                levels = {"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warning": 4, "notice": 5, "info": 6,
                          "debug": 7}
                if value not in levels and not (value.isdecimal() and int(value) <= 7):
                    raise ctx.fail(f"Failed to parse priority value: {value}\n", 1)
                priority = levels.get(value, int(value) if value.isdecimal() else 7)
            elif key in ("-o", "--output"):
                if value not in ("short", "short-iso", "short-precise", "cat", "json"):
                    raise ctx.fail(f"Unknown output format '{value}'.\n", 1)
                output = value
        if rest:
            raise ctx.fail(f"Failed to add match '{rest[0]}': Invalid argument\n", 1)
        entries: list[tuple[float, str, int, str, str]] = []   # offset, source, priority, message, unit
        chosen = [(u, find_unit(node, u)) for u in units] if units or kernel else \
            [(key, service) for key, service in node.hw.services.items()]
        for unit, service in chosen:
            if service is None:
                continue
            for offset, message in unit_journal(ctx.cluster, node, service):
                level = 3 if "fail" in message.lower() else 6
                entries.append((offset, journal_source(unit, service, message), level, message,
                                f"{service.name}.service"))
        if kernel or not units:
            events = kernel_events(ctx.cluster, node) if interval is None else \
                [e for e in journal_kernel_log(node)
                 if interval[0] <= e.offset_s < interval[1] or e.offset_s == interval[1] == ctx.clock.elapsed]
            for event in events:
                level = {"err": 3, "warn": 4}.get(event.level, 6)
                entries.append((event.offset_s, "kernel", level, event.text, ""))
        if not units and not kernel:   # sudo and sshd log through syslog(3) to the journal too
            entries += [(at, program, 5, message, "") for at, program, message in node.hw.auth_log]
        if interval is not None:
            first, last = interval
            entries = [e for e in entries if first <= e[0] and (e[0] < last or last == ctx.clock.elapsed)]
        now = ctx.clock.elapsed
        entries = [e for e in entries if e[0] <= now and (since is None or e[0] >= since)
                   and (until is None or e[0] <= until) and (priority is None or e[2] <= priority)]
        entries.sort(key=lambda e: e[0])
        if limit is not None:
            entries = entries[-limit:] if limit else []
        if reverse:
            entries.reverse()
        if not entries and not follow:
            ctx.outln("-- No entries --")
            return 0
        for offset, source, level, message, unit_name in entries:
            when = ctx.clock.at(offset)
            if output == "json":
                ctx.outln(_journal_json(ctx, node, offset, source, level, message, unit_name))
                continue
            if output == "cat":
                ctx.outln(message)
                continue
            if output == "short-iso":
                stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
            elif output == "short-precise":
                stamp = syslog_stamp(when) + f".{when.microsecond:06d}"
            else:
                stamp = syslog_stamp(when)
            ctx.outln(f"{stamp} {node.name} {source}: {message}")
        return follow_forever(ctx, "journalctl") if follow else 0


def _boot_ref(text: str) -> bool:
    """Whether ``text`` names a boot: an offset (0, -1, +2) or a 32-digit boot ID."""
    return text.lstrip("+-").isdecimal() or (len(text) == 32 and all(c in "0123456789abcdef" for c in text))


def _boot_index(ctx: Context, node: Node, starts: list[float], ref: str) -> int | None:
    """The boot ``ref`` names: 0 the current one, -1 the one before, 1 the oldest in the journal."""
    if not ref.lstrip("+-").isdecimal():
        ids = [boot_id(ctx.cluster, node, start) for start in starts]
        return ids.index(ref) if ref in ids else None
    n = int(ref)
    index = len(starts) - 1 + n if n <= 0 else n - 1
    return index if 0 <= index < len(starts) else None


def _list_boots(ctx: Context, node: Node, starts: list[float]) -> int:
    """``journalctl --list-boots`` as systemd 249 prints it: offset, boot ID, first and last entry."""
    stamps = sorted([e.offset_s for e in journal_kernel_log(node)] +
                    [offset for service in node.hw.services.values() for offset, _ in unit_journal(ctx.cluster, node, service)])
    width = len(str(len(starts) - 1)) + 1
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else ctx.clock.elapsed
        inside = [t for t in stamps if start <= t < end or t == end == ctx.clock.elapsed]
        last = max(inside, default=start)
        ctx.outln(f"{index - len(starts) + 1:>{width}} {boot_id(ctx.cluster, node, start)} {_journal_stamp(ctx, start)}—"
                  f"{_journal_stamp(ctx, last)}")
    return 0


def _journal_stamp(ctx: Context, offset: float) -> str:
    """``Wed 2026-03-11 09:00:00 UTC`` (systemd's format_timestamp)."""
    return ctx.clock.at(offset).strftime("%a %Y-%m-%d %H:%M:%S UTC")


def _journal_json(ctx: Context, node: Node, offset: float, source: str, level: int, message: str,
                  unit: str) -> str:
    """One entry as ``journalctl -o json`` prints it: one object per line, every value a string."""
    usec = int(round((ctx.clock.at(offset) - EPOCH).total_seconds() * 1e6))
    boot = max((b.offset_s for b in node.health.boots if b.offset_s <= offset), default=boot_offset(node))
    identifier, _, pid = source.partition("[")
    entry = {"__REALTIME_TIMESTAMP": str(usec), "__MONOTONIC_TIMESTAMP": str(int(max(0.0, offset - boot) * 1e6)),
             "_BOOT_ID": boot_id(ctx.cluster, node, boot), "PRIORITY": str(level), "_HOSTNAME": node.name,
             "SYSLOG_IDENTIFIER": identifier}
    if identifier == "kernel":
        entry.update({"_TRANSPORT": "kernel", "SYSLOG_FACILITY": "0"})
    else:
        entry.update({"_TRANSPORT": "stdout" if identifier != "systemd" else "journal", "SYSLOG_FACILITY": "3",
                      "_PID": pid.rstrip("]")})
        entry["_SYSTEMD_UNIT" if identifier != "systemd" else "UNIT"] = unit
    entry["MESSAGE"] = message
    return json.dumps(entry, separators=(",", ":"))
