"""``systemctl``, ``journalctl`` and ``dmesg`` over a host's services and kernel log.

Services come from ``node.hw.services`` (state, since, PID, journal) and the
kernel log from ``node.hw.kernel_log``; both are offsets on the simulated
clock, so a Fabric Manager failure, an Xid burst and a PCIe link warning read
the same instant in every tool. Layouts follow systemd 249 and util-linux
2.37 as shipped with Ubuntu 22.04.
"""

from __future__ import annotations

import getopt
import json
from collections.abc import Generator
from datetime import UTC, datetime, timedelta

from emulator.cluster.boots import boot_id, boot_offset, boot_starts, journal_kernel_log, kernel_events
from emulator.cluster.hardware import Service
from emulator.cluster.ids import rng
from emulator.cluster.model import Node
from emulator.cluster.services import EXEC, journal_source, unit_journal
from emulator.commands.kit.command import Command, Context, Outcome, RawCommand
from emulator.commands.kit.usage import follows

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def gnu_getopt(ctx: Context, argv: list[str], short: str, long: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Parse like getopt_long, raising the GNU wording on bad options."""
    try:
        return getopt.gnu_getopt(argv, short, long)
    except getopt.GetoptError as exc:
        name = ctx.argv[0]
        opt = exc.opt
        if exc.msg.startswith("option --") and "requires argument" in exc.msg:
            text = f"{name}: option '--{opt}' requires an argument"
        elif exc.msg.startswith("option -") and "requires argument" in exc.msg:
            text = f"{name}: option requires an argument -- '{opt}'"
        elif len(opt) > 1 or exc.msg.startswith("option --"):
            text = f"{name}: unrecognized option '--{opt}'"
        else:
            text = f"{name}: invalid option -- '{opt}'"
        raise ctx.fail(f"{text}\nTry '{name} --help' for more information.\n", 1) from None


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


def _syslog_stamp(when: datetime) -> str:
    return f"{when:%b} {when.day:>2} {when:%H:%M:%S}"


def journal_entries(ctx: Context, node: Node, unit: str, service: Service) -> list[tuple[float, str]]:
    """(offset, formatted line) of a unit's journal up to now."""
    now = ctx.clock.elapsed
    out = []
    for offset, message in unit_journal(ctx.cluster, node, service):
        if offset <= now:
            when = ctx.clock.at(offset)
            out.append((offset, f"{_syslog_stamp(when)} {node.name} {journal_source(unit, service, message)}: "
                                f"{message}"))
    return out


#: Seconds a follow (``journalctl -f``, ``dmesg -w``) waits before it stops by itself.
FOLLOW_CAP_S = 3600


def follow_forever() -> Generator[float, None, int]:
    """Wait for new lines, as ``-f`` does, until interrupted (or an hour of simulated time)."""
    for _ in range(FOLLOW_CAP_S):
        yield 1.0
    return 0


# -- systemctl ---------------------------------------------------------------------------


class Systemctl(RawCommand):
    name = "systemctl"
    summary = "Query the systemd system and service manager"
    section = "System"
    notes = "Sub-commands: status, is-active, is-failed, is-enabled, list-units [--failed]. Changing units needs root."

    def option_strings(self) -> list[str]:
        return ["--failed", "--no-pager", "--full", "-l", "--lines", "-n", "--state", "--type"]

    def subcommands(self) -> list[str]:
        return ["status", "is-active", "is-failed", "is-enabled", "is-system-running", "list-units", "start",
                "stop", "restart"]

    def execute(self, ctx: Context) -> Outcome:
        opts, rest = gnu_getopt(ctx, ctx.argv[1:], "hln:t:", ["help", "failed", "no-pager", "full", "lines=",
                                                              "state=", "type=", "all", "quiet"])
        flags = {k for k, _ in opts}
        if flags & {"-h", "--help"}:
            ctx.out(self.help_text())
            return 0
        lines = 10
        for key, value in opts:
            if key in ("-n", "--lines"):
                if not value.isdecimal():
                    raise ctx.fail(f"Failed to parse lines '{value}'\n", 1)
                lines = int(value)
        verb = rest[0] if rest else "list-units"
        units = rest[1:]
        node = ctx.host
        if verb == "list-units":
            return self._list_units(ctx, node, "--failed" in flags or ("--state", "failed") in opts)
        if verb == "status":
            if not units:
                return self._system_status(ctx, node)
            return self._status(ctx, node, units, lines)
        if verb == "is-system-running":
            failed = any(s.sub_state == "failed" for s in node.hw.services.values())
            ctx.outln("degraded" if failed else "running")
            return 1 if failed else 0
        if verb in ("is-active", "is-failed", "is-enabled"):
            if not units:
                raise ctx.fail("Too few arguments.\n", 1)
            return self._is(ctx, node, verb, units)
        if verb in ("start", "stop", "restart", "reload", "enable", "disable"):
            unit = (units or [""])[0]
            unit = unit if unit.endswith(".service") else f"{unit}.service"
            raise ctx.fail(f"Failed to {verb} {unit}: Interactive authentication required.\n"
                           f"See system logs and 'systemctl status {unit}' for details.\n", 1)
        raise ctx.fail(f"Unknown command verb {verb}.\n", 1)

    def _system_status(self, ctx: Context, node: Node) -> int:
        """``systemctl status`` with no unit: the host's overall state."""
        failed = sum(1 for s in node.hw.services.values() if s.sub_state == "failed")
        boot = boot_offset(node)
        since = ctx.clock.at(boot)
        active = sorted((s for s in node.hw.services.values() if s.active), key=lambda s: s.name)
        units = "".join(f"             {'└' if i == len(active) - 1 else '├'}─{s.name}.service\n"
                        for i, s in enumerate(active))
        ctx.out(f"● {node.name}\n"
                f"    State: {'degraded' if failed else 'running'}\n"
                f"     Jobs: 0 queued\n"
                f"   Failed: {failed} units\n"
                f"    Since: {since:%a %Y-%m-%d %H:%M:%S} UTC; {relative(ctx.clock.elapsed - boot)}\n"
                f"   CGroup: /\n"
                f"           ├─user.slice\n"
                f"           ├─init.scope\n"
                f"           │ └─1 /sbin/init\n"
                f"           └─system.slice\n" + units)
        return 0

    def _status(self, ctx: Context, node: Node, units: list[str], lines: int) -> int:
        status = 0
        blocks: list[str] = []
        for name in units:
            unit = name[:-len(".service")] if name.endswith(".service") else name
            service = find_unit(node, unit)
            if service is None:
                ctx.err(f"Unit {unit}.service could not be found.\n")
                status = 4
                continue
            blocks.append(self._status_block(ctx, node, unit, service, lines))
            if not service.active and status == 0:
                status = 3
        ctx.out("\n".join(blocks))
        return status

    def _status_block(self, ctx: Context, node: Node, unit: str, service: Service, lines: int) -> str:
        binary, cmdline, path, kind = EXEC.get(service.name, (service.name, f"/usr/sbin/{service.name}",
                                                              f"/lib/systemd/system/{service.name}.service", "simple"))
        since = ctx.clock.at(service.since_s)
        stamp = f"{since:%a %Y-%m-%d %H:%M:%S} UTC; {relative(ctx.clock.elapsed - service.since_s)}"
        r = rng(ctx.cluster.seed, node.name, "unit", service.name)
        sym = "●" if service.active else ("×" if service.sub_state == "failed" else "○")
        out = [f"{sym} {service.name}.service - {service.description}",
               f"     Loaded: loaded ({path}; enabled; vendor preset: enabled)"]
        if service.active:
            out.append(f"     Active: active ({service.sub_state}) since {stamp}")
            if kind == "forking":
                out.append(f"    Process: {service.main_pid - 2} ExecStart={cmdline.split()[0]} "
                           f"{' '.join(cmdline.split()[1:])} (code=exited, status=0/SUCCESS)")
            out.append(f"   Main PID: {service.main_pid} ({binary[:15]})")
            out.append(f"      Tasks: {r.randint(3, 24)} (limit: 629145)")
            out.append(f"     Memory: {r.uniform(4.0, 48.0):.1f}M")
            cpu_s = r.uniform(20.0, 900.0)
            out.append(f"        CPU: {int(cpu_s // 60)}min {cpu_s % 60:.3f}s")
            out.append(f"     CGroup: /system.slice/{service.name}.service")
            out.append(f"             └─{service.main_pid} {cmdline}")
        else:
            state = "failed" if service.sub_state == "failed" else "inactive"
            result = f" (Result: {service.result})" if state == "failed" else ""
            out.append(f"     Active: {state}{result} since {stamp}")
            code = f"status={service.exit_status}/FAILURE" if service.exit_status else "status=0/SUCCESS"
            out.append(f"    Process: {service.main_pid} ExecStart={cmdline} (code=exited, {code})")
            out.append(f"        CPU: {r.randint(8, 40)}ms")
        entries = journal_entries(ctx, node, unit, service)[-lines:] if lines else []
        if entries:
            out.append("")
            out += [line for _, line in entries]
        return "\n".join(out) + "\n"

    def _is(self, ctx: Context, node: Node, verb: str, units: list[str]) -> int:
        status = 0
        for name in units:
            service = find_unit(node, name)
            if verb == "is-enabled":
                if service is None:
                    unit = name if name.endswith(".service") else f"{name}.service"
                    ctx.err(f"Failed to get unit file state for {unit}: No such file or directory\n")
                    status = 1
                else:
                    ctx.outln("enabled")
                continue
            state = "inactive" if service is None else ("active" if service.active else service.sub_state)
            state = state if state in ("active", "failed") else "inactive"
            ctx.outln(state)
            good = state == "active" if verb == "is-active" else state == "failed"
            if not good:
                status = 3 if verb == "is-active" else 1
        return status

    def _list_units(self, ctx: Context, node: Node, failed_only: bool) -> int:
        rows: list[tuple[str, str, str, str, str, bool]] = []
        for service in sorted(node.hw.services.values(), key=lambda s: s.name):
            if failed_only and service.sub_state != "failed":
                continue
            active = "active" if service.active else ("failed" if service.sub_state == "failed" else "inactive")
            rows.append((f"{service.name}.service", "loaded", active, service.sub_state, service.description,
                         service.sub_state == "failed"))
        if not rows:
            ctx.out("  UNIT LOAD ACTIVE SUB DESCRIPTION\n0 loaded units listed.\n")
            return 0
        w = [max(len(h), *(len(str(r[i])) for r in rows)) for i, h in enumerate(("UNIT", "LOAD", "ACTIVE", "SUB"))]
        ctx.outln(f"  {'UNIT':<{w[0]}} {'LOAD':<{w[1]}} {'ACTIVE':<{w[2]}} {'SUB':<{w[3]}} DESCRIPTION")
        for unit, load, active, sub, desc, bad in rows:
            ctx.outln(f"{'●' if bad else ' '} {unit:<{w[0]}} {load:<{w[1]}} {active:<{w[2]}} {sub:<{w[3]}} {desc}")
        ctx.out("\nLOAD   = Reflects whether the unit definition was properly loaded.\n"
                "ACTIVE = The high-level unit activation state, i.e. generalization of SUB.\n"
                "SUB    = The low-level unit activation state, values depend on unit type.\n"
                f"{len(rows)} loaded units listed.\n")
        return 0


# -- journalctl ------------------------------------------------------------------------------


def parse_since(ctx: Context, text: str) -> float:
    """A journalctl time spec → offset on the simulated clock."""
    now = ctx.clock.now()
    word = text.strip()
    if word in ("now",):
        return ctx.clock.elapsed
    if word in ("today", "yesterday"):
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if word == "yesterday":
            day -= timedelta(days=1)
        return (day - ctx.clock.start).total_seconds()
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
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M"):
        try:
            parsed = datetime.strptime(word, fmt)
        except ValueError:
            continue
        if fmt.startswith("%H"):
            parsed = parsed.replace(year=now.year, month=now.month, day=now.day)
        return (parsed.replace(tzinfo=now.tzinfo) - ctx.clock.start).total_seconds()
    raise ctx.fail(f"Failed to parse timestamp: {text}\n", 1)


class Journalctl(RawCommand):
    name = "journalctl"
    streams = True
    summary = "Query the systemd journal"
    section = "System"
    notes = ("Supports -u UNIT, -k, -b [OFFSET|ID], --list-boots, -n N, --since/--until, -p err, --no-pager, -r,\n"
             "-o short-iso|cat|json.")

    def option_strings(self) -> list[str]:
        return ["-u", "--unit", "-k", "--dmesg", "-b", "--boot", "--list-boots", "-n", "--lines", "--since", "-S",
                "--until", "-U", "--no-pager", "-p", "--priority", "-r", "--reverse", "-o", "--output", "-e", "-x"]

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
        opts, rest = gnu_getopt(ctx, argv, "hu:kbn:S:U:p:ro:exf", [
            "help", "unit=", "dmesg", "boot", "lines=", "since=", "until=", "no-pager", "priority=", "reverse",
            "output=", "pager-end", "catalog", "no-hostname", "utc", "all", "follow", "list-boots"])
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
                stamp = _syslog_stamp(when) + f".{when.microsecond:06d}"
            else:
                stamp = _syslog_stamp(when)
            ctx.outln(f"{stamp} {node.name} {source}: {message}")
        return follow_forever() if follow else 0


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


# -- dmesg -------------------------------------------------------------------------------------


class Dmesg(RawCommand):
    name = "dmesg"
    streams = True
    summary = "Print the kernel ring buffer"
    section = "System"
    notes = "Supports -T, --time-format ctime|iso|reltime|notime, -l LEVELS, -H, -k, -x, -s SIZE, -P."

    def pure(self, words: list[str]) -> bool:
        return not follows(words)

    def option_strings(self) -> list[str]:
        return ["-T", "--ctime", "--time-format", "-l", "--level", "-H", "--human", "-k", "--kernel", "-x",
                "--decode", "-t", "--notime", "-L", "--color", "-P", "--nopager", "-s", "--buffer-size"]

    def execute(self, ctx: Context) -> Outcome:
        opts, rest = gnu_getopt(ctx, ctx.argv[1:], "hTl:HktxLwcCPs:", [
            "help", "ctime", "time-format=", "level=", "human", "kernel", "notime", "decode", "color=", "nopager",
            "follow", "clear", "read-clear", "buffer-size="])
        if any(k in ("-c", "-C", "--clear", "--read-clear") for k, _ in opts):
            raise ctx.fail("dmesg: klogctl failed: Operation not permitted\n", 1)
        if rest:
            raise ctx.fail("dmesg: bad usage\nTry 'dmesg --help' for more information.\n", 1)
        fmt, levels, decode = "raw", None, False
        for key, value in opts:
            if key in ("-h", "--help"):
                ctx.out(self.help_text())
                return 0
            if key in ("-T", "--ctime"):
                fmt = "ctime"
            elif key in ("-t", "--notime"):
                fmt = "notime"
            elif key in ("-H", "--human"):
                fmt = "reltime"
            elif key == "--time-format":
                if value not in ("ctime", "iso", "reltime", "delta", "notime"):
                    raise ctx.fail(f"dmesg: unknown time format: {value}\n", 1)
                fmt = "raw" if value == "delta" else value
            elif key in ("-l", "--level"):
                known = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"}
                levels = set()
                for level in value.split(","):
                    if level not in known:
                        raise ctx.fail(f"dmesg: unknown level '{level}'\n", 1)
                    levels.add(level)
            elif key in ("-x", "--decode"):
                decode = True
            elif key in ("-s", "--buffer-size") and not (value.isdecimal() and int(value) > 0):
                raise ctx.fail(f"dmesg: invalid buffer size argument: '{value}'\n", 1)
        node = ctx.host
        boot = boot_offset(node)
        previous: datetime | None = None
        for event in kernel_events(ctx.cluster, node):
            level = event.level if event.level in ("err", "warn") else "info"
            if levels is not None and level not in levels:
                continue
            rel = event.offset_s - boot
            when = ctx.clock.at(event.offset_s)
            prefix = f"kern  :{level:<6}: " if decode else ""
            if fmt == "ctime":
                ctx.outln(f"{prefix}[{when:%a %b} {when.day:>2} {when:%H:%M:%S %Y}] {event.text}")
            elif fmt == "iso":
                ctx.outln(f"{prefix}{when:%Y-%m-%dT%H:%M:%S},{when.microsecond:06d}+00:00 {event.text}")
            elif fmt == "notime":
                ctx.outln(prefix + event.text)
            elif fmt == "reltime":
                if previous is None or (when - previous).total_seconds() >= 60:
                    ctx.outln(f"{prefix}[{when:%b}{when.day:>2} {when:%H:%M}] {event.text}")
                else:
                    delta = (when - previous).total_seconds()
                    ctx.outln(f"{prefix}[  +{delta:.6f}] {event.text}")
                previous = when
            else:
                ctx.outln(f"{prefix}[{int(rel):5d}.{int(round(rel % 1 * 1e6)) % 1000000:06d}] {event.text}")
        return follow_forever() if any(k in ("-w", "--follow") for k, _ in opts) else 0


def commands() -> list[Command]:
    return [Systemctl(), Journalctl(), Dmesg()]
