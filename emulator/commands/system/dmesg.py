"""``dmesg`` (util-linux 2.37): the kernel ring buffer since the last boot, in each of its time formats.

Clearing the buffer needs root; ``-w`` follows until interrupted.
"""

from __future__ import annotations

from datetime import datetime

from emulator.cluster.boots import boot_offset, kernel_events
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.commands.kit.usage import follows
from emulator.commands.system.journal import follow_forever
from emulator.commands.system.options import gnu_getopt


class Dmesg(RawCommand):
    name = "dmesg"
    streams = True
    summary = "Print the kernel ring buffer"
    section = "System"

    def pure(self, words: list[str]) -> bool:
        return not follows(words)

    flags = (
        Flag("-h", "--help", "", "display this help"),
        Flag("-T", "--ctime", "", "show human-readable timestamps"),
        Flag("", "--time-format", "FORMAT", "show timestamps as ctime, iso, reltime, delta or notime"),
        Flag("-l", "--level", "LIST", "restrict output to these levels (err,warn,...)"),
        Flag("-H", "--human", "", "human readable output"),
        Flag("-k", "--kernel", "", "display kernel messages"),
        Flag("-t", "--notime", "", "do not show any timestamp with messages"),
        Flag("-x", "--decode", "", "decode facility and level to readable strings"),
        Flag("-L", "", "", "colorize messages"),
        Flag("", "--color", "WHEN", "colorize messages: always, never or auto"),
        Flag("-w", "--follow", "", "wait for new messages"),
        Flag("-c", "--read-clear", "", "read and clear all messages (needs root)"),
        Flag("-C", "--clear", "", "clear the ring buffer (needs root)"),
        Flag("-P", "--nopager", "", "do not pipe output into a pager"),
        Flag("-s", "--buffer-size", "SIZE", "buffer size to query the kernel ring buffer"),
    )
    synopsis = "[options]"

    def execute(self, ctx: Context) -> Outcome:
        opts, rest = gnu_getopt(ctx, ctx.argv[1:], self.flags)
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
        return follow_forever(ctx, "dmesg") if any(k in ("-w", "--follow") for k, _ in opts) else 0
