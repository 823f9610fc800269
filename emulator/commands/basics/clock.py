"""Time: date (parsing and formats), sleep, timeout and watch on the simulated clock."""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime, timedelta

from emulator.commands.kit.command import Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.spec import ArgumentParser, Flag
from emulator.errors import CommandError
from emulator.limits import SLEEP_LIMIT_S, WATCH_COUNT, WATCH_MAX, limit_reached

SECTION = "Shell"



def parse_date(text: str, now: datetime) -> datetime | None:
    """The simple ``date -d`` forms: now, today, yesterday, tomorrow, @EPOCH, N units [ago], ISO dates."""
    t = text.strip().lower()
    if t in ("", "now", "today"):
        return now
    if t == "yesterday":
        return now - timedelta(days=1)
    if t == "tomorrow":
        return now + timedelta(days=1)
    if t.startswith("@"):
        try:
            return datetime.fromtimestamp(float(t[1:]), tz=UTC)
        except (ValueError, OverflowError, OSError):
            return None
    match = _RELATIVE.match(t)
    if match:
        seconds = int(match.group(1)) * _UNITS[match.group(2)]
        if match.group(3):
            seconds = -seconds
        try:
            return now + timedelta(seconds=seconds)
        except OverflowError:
            return None
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dt%H:%M:%S", "%Y-%m-%d"):
        try:
            return datetime.strptime(t.removesuffix(" utc").removesuffix("z"), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None



def format_date(when: datetime, fmt: str) -> str:
    """strftime with GNU's %N (nanoseconds), %s (epoch), %P and %-d style padding flags."""
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 >= len(fmt):
            out.append(c)
            i += 1
            continue
        spec = fmt[i + 1]
        pad = ""
        if spec in "-_0" and i + 2 < len(fmt):
            pad, spec = spec, fmt[i + 2]
            i += 1
        i += 2
        if spec == "N":
            value = f"{when.microsecond * 1000:09d}"
        elif spec == "s":
            value = str(int(when.timestamp()))
        elif spec == "P":
            value = when.strftime("%p").lower()
        elif spec == "z":
            value = "+0000"
        elif spec == "Z":
            value = "UTC"
        elif spec.isalpha() or spec == "%":
            try:
                value = when.strftime("%" + spec)
            except ValueError:
                value = "%" + spec
        else:
            value = "%" + spec
        if pad == "-":
            value = value.lstrip("0") or "0"
        elif pad == "_" and value.startswith("0") and len(value) > 1:
            value = " " + value[1:]
        out.append(value)
    return "".join(out)



class Date(ParsedCommand):
    name = "date"
    reads_only = True
    summary = "print the (simulated) date and time"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("format", nargs="?", metavar="+FORMAT", help="output format, e.g. +%%Y-%%m-%%d")
        parser.add_argument("-d", "--date", metavar="STRING", help="display time described by STRING, not 'now'")
        parser.add_argument("-u", "--utc", "--universal", action="store_true", help="print Coordinated Universal Time")
        parser.add_argument("-I", "--iso-8601", nargs="?", const="date", metavar="FMT",
                            help="ISO 8601 format (date, hours, minutes, seconds, ns)")
        parser.add_argument("-R", "--rfc-email", action="store_true", help="RFC 5322 format")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        now = ctx.clock.now()
        if args.date is not None:
            parsed = parse_date(args.date, now)
            if parsed is None:
                raise ctx.fail(f"date: invalid date ‘{args.date}’", 1)
            now = parsed
        if args.format is not None and not args.format.startswith("+"):
            raise ctx.fail(f"date: invalid date ‘{args.format}’", 1)
        if args.format:
            ctx.outln(format_date(now, args.format[1:]))
        elif args.iso_8601:
            ctx.outln(_iso(now, args.iso_8601))
        elif args.rfc_email:
            ctx.outln(now.strftime("%a, %d %b %Y %H:%M:%S +0000"))
        else:
            ctx.outln(now.strftime("%a %b %e %H:%M:%S UTC %Y"))
        return 0



def _iso(when: datetime, precision: str) -> str:
    forms = {"date": "%Y-%m-%d", "hours": "%Y-%m-%dT%H+00:00", "minutes": "%Y-%m-%dT%H:%M+00:00",
             "seconds": "%Y-%m-%dT%H:%M:%S+00:00"}
    if precision == "ns":
        return when.strftime("%Y-%m-%dT%H:%M:%S,") + f"{when.microsecond * 1000:09d}+00:00"
    if precision not in forms:
        raise CommandError(f"date: invalid argument ‘{precision}’ for ‘--iso-8601’\nValid arguments are:\n"
                           "  - ‘hours’\n  - ‘minutes’\n  - ‘date’\n  - ‘seconds’\n  - ‘ns’\n"
                           "Try 'date --help' for more information.", 1)
    return when.strftime(forms[precision])



#: ``sleep``'s one option.
_HELP = Flag("-h", "--help", "", "display this help and exit")


class Timeout(RawCommand):
    name = "timeout"
    streams = True
    summary = "run a command with a (simulated) time limit; status 124 when it expires"
    section = SECTION
    synopsis = "[OPTION] DURATION COMMAND [ARG]..."
    description = "DURATION is a number with an optional suffix: s (seconds, the default), m, h or d; 0 means no limit."
    flags = (
        Flag("-s", "--signal", "SIGNAL", "the signal to send on time-out (accepted; the command just stops)"),
        Flag("-k", "--kill-after", "DURATION", "also send KILL this long after the first signal (accepted, ignored)"),
        Flag("", "--preserve-status", "", "accepted and ignored"),
        Flag("", "--foreground", "", "accepted and ignored"),
        Flag("-v", "--verbose", "", "accepted and ignored"),
    )
    #: The options whose value is the next word, from the table above.
    _WITH_VALUE = frozenset(spelling for flag in flags if flag.value for spelling in flag.strings())

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        at = 0
        while at < len(words) and words[at].startswith("-") and not _DURATION.match(words[at]):
            at += 2 if words[at] in self._WITH_VALUE else 1
        words = words[at:]
        if len(words) < 2:
            raise ctx.fail("timeout: missing operand\nTry 'timeout --help' for more information.", 125)
        match = _DURATION.match(words[0])
        if not match:
            raise ctx.fail(f"timeout: invalid time interval ‘{words[0]}’\nTry 'timeout --help' for more information.", 125)
        limit = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}[match.group(2)]
        if ctx.commands.lookup(words[1]) is None:
            raise ctx.fail(f"timeout: failed to run command ‘{words[1]}’: No such file or directory", 127)
        run = ctx.shell.run_streaming(words[1:], ctx)
        waited = 0.0
        while True:
            try:
                pause = next(run)
            except StopIteration as stop:
                return int(stop.value or 0)
            if limit and waited + pause >= limit:
                run.close()
                yield max(0.0, limit - waited)
                return 124
            waited += pause
            yield pause



class Sleep(RawCommand):
    name = "sleep"
    summary = "wait for a number of (simulated) seconds; suffixes s, m, h, d"
    section = SECTION
    synopsis = "NUMBER[SUFFIX]..."
    flags = (_HELP,)

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if words[:1] and words[0] in _HELP.strings():
            ctx.out("Usage: sleep NUMBER[SUFFIX]...\nPause for NUMBER seconds (simulated time here).\n")
            return 0
        if not words:
            raise ctx.fail("sleep: missing operand\nTry 'sleep --help' for more information.", 1)
        total = 0.0
        for word in words:
            match = _DURATION.match(word)
            if not match:
                raise ctx.fail(f"sleep: invalid time interval ‘{word}’\nTry 'sleep --help' for more information.", 1)
            total += float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}[match.group(2)]
        return self._wait(ctx, total)

    @staticmethod
    def _wait(ctx: Context, asked: float) -> Outcome:
        total = min(asked, SLEEP_LIMIT_S)
        for _ in range(5):
            if total <= 0:
                break
            step = min(1.0, total)
            total -= step
            yield step
        if total > 0:
            yield total
        if asked > SLEEP_LIMIT_S:
            ctx.err(limit_reached(f"sleep: stopped after {SLEEP_LIMIT_S:.0f} seconds") + "\n")
            return 1
        return 0



class Watch(ParsedCommand):
    name = "watch"
    streams = True
    summary = "run a command every N simulated seconds and show its output (bounded)"
    section = SECTION
    notes = (f"Here watch stops by itself after --count refreshes (default {WATCH_COUNT}, at most {WATCH_MAX}), "
             "an option of this terminal that procps watch does not have, and says so; Ctrl-C stops it sooner.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--interval", type=float, default=2.0, metavar="SECS",
                            help="seconds to wait between updates")
        parser.add_argument("--count", type=int, metavar="COUNT",
                            help=f"number of refreshes before stopping (default {WATCH_COUNT}; this terminal's own)")
        parser.add_argument("-c", "--color", action="store_true", help="interpret ANSI color and style sequences")
        parser.add_argument("-t", "--no-title", action="store_true", help="turn off header")
        parser.add_argument("-d", "--differences", action="store_true", help="highlight changes (accepted, ignored)")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="the command line to run")

    def usage_error(self, message: str) -> str:
        return f"watch: {message}\n\nUsage:\n watch [options] command\n"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if not args.command:
            raise ctx.fail("\nUsage:\n watch [options] command\n", 1)
        interval = max(0.1, min(args.interval, 86_400.0))
        count = max(1, min(WATCH_COUNT if args.count is None else args.count, WATCH_MAX))
        line = " ".join(args.command)
        for refresh in range(count):
            output = ctx.shell.capture(line)
            ctx.out("\x1b[H\x1b[2J")
            if not args.no_title:
                left = f"Every {interval:.1f}s: {line}"
                right = f"{ctx.host.name}: {ctx.clock.now().strftime('%a %b %e %H:%M:%S %Y')}"
                gap = max(1, 80 - len(left) - len(right))
                ctx.out(f"{left}{' ' * gap}{right}\n\n")
            ctx.out(output)
            if refresh + 1 < count:
                yield interval
        if args.count is None:
            ctx.err(limit_reached(f"watch: stopped after {count} refreshes; --count sets how many") + "\n")
            return 1
        if args.count > WATCH_MAX:
            ctx.err(limit_reached(f"watch: stopped after {WATCH_MAX} refreshes") + "\n")
            return 1
        return 0


# -- date -----------------------------------------------------------------------------
_RELATIVE = re.compile(r"^([-+]?\d+)\s*(sec|second|min|minute|hour|day|week)s?(\s+ago)?$")



_UNITS = {"sec": 1, "second": 1, "min": 60, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800}



# -- timing --------------------------------------------------------------------------------
_DURATION = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")
