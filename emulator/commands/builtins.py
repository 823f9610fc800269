"""The shell's own commands: help and man, identity (hostname, whoami, uname,
uptime, date), shell state (cd, pwd, export, env, history, clear), lookup
(which, type), hosts (ssh, exit), timing (sleep, watch), echo and printf.
"""

from __future__ import annotations

import argparse
import re
import shlex
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from emulator.commands import registry
from emulator.commands.base import ArgumentParser, Command, Context, Outcome
from emulator.errors import CommandError
from emulator.shell import hostfs
from emulator.shell.interpreter import ExitShell
from emulator.shell.lexer import ShellSyntaxError

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Node

SECTION = "Shell"
#: Names bash implements itself (``type`` says "shell builtin", ``which`` finds nothing).
SHELL_BUILTINS = {"cd", "pwd", "echo", "printf", "export", "unset", "history", "exit", "logout", "type", "help",
                  "true", "false", "alias", "unalias", "test", "[", ":", "read", "source", ".", "set"}
#: Where ``which`` finds the commands that live outside /usr/bin.
_PATHS = {
    "ibstat": "/usr/sbin/ibstat", "ibstatus": "/usr/sbin/ibstatus", "iblinkinfo": "/usr/sbin/iblinkinfo",
    "perfquery": "/usr/sbin/perfquery", "ibnetdiscover": "/usr/sbin/ibnetdiscover", "sminfo": "/usr/sbin/sminfo",
    "ibqueryerrors": "/usr/sbin/ibqueryerrors", "ibswitches": "/usr/sbin/ibswitches", "ip": "/usr/sbin/ip",
    "lspci": "/usr/bin/lspci", "all_reduce_perf": "/opt/nccl-tests/build/all_reduce_perf",
    "all_gather_perf": "/opt/nccl-tests/build/all_gather_perf", "nvidia-smi": "/usr/bin/nvidia-smi",
    "lab": "/usr/local/bin/lab", "hint": "/usr/local/bin/hint", "solutions": "/usr/local/bin/solutions",
    "submit": "/usr/local/bin/submit", "py-spy": "/usr/local/bin/py-spy", "nvcc": "/usr/local/cuda/bin/nvcc",
}
#: Default ``watch`` refreshes before it stops by itself.
WATCH_COUNT = 10
#: Longest simulated ``sleep``.
SLEEP_LIMIT_S = 7 * 86_400.0


def command_path(name: str) -> str | None:
    """The path ``which`` prints for a registered command, None for shell builtins."""
    if name in SHELL_BUILTINS and name not in ("echo", "printf", "true", "false", "pwd"):
        return None
    return _PATHS.get(name, f"/usr/bin/{name}")


class Help(Command):
    name = "help"
    summary = "list every command, grouped by topic"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("topic", nargs="?", help="a command name: the same as `man TOPIC`")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.topic:
            command = registry.lookup(args.topic)
            if command is None:
                raise ctx.fail(f"bash: help: no help topics match `{args.topic}'.  Try `man -k {args.topic}'.")
            ctx.out(command.help_text())
            return 0
        commands = registry.commands()
        width = max((len(c.name) for c in commands), default=8) + 2
        ctx.outln("Commands of this simulated cluster ('man CMD' or 'CMD --help' for details):")
        section = None
        for command in sorted(commands, key=lambda c: (_section_rank(c.section), c.section, c.name)):
            if command.section != section:
                section = command.section
                ctx.outln()
                ctx.outln(f"{section}:")
            ctx.outln(f"  {command.name:<{width}}{command.summary}")
        ctx.outln()
        ctx.outln("Type 'lab' for this page's lab task, and 'solutions' for reference procedures.")
        return 0


def _section_rank(section: str) -> int:
    """The shell's own sections come last, after the operator tools."""
    return {SECTION: 2, "Files and text": 1}.get(section, 0)


class Man(Command):
    name = "man"
    summary = "show a command's manual page (from the same spec as --help)"
    section = SECTION
    usage_status = 1

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("page", nargs="?", help="command name")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if not args.page:
            raise ctx.fail("What manual page do you want?\nFor example, try 'man man'.", 1)
        command = registry.lookup(args.page)
        if command is None:
            raise ctx.fail(f"No manual entry for {args.page}", 16)
        ctx.out(render_man(command))
        return 0


def render_man(command: Command) -> str:
    """A man page laid out like man(1): NAME, SYNOPSIS, DESCRIPTION, from the help text."""
    title = f"{command.name.upper()}(1)"
    middle = "User Commands"
    pad = max(1, (78 - len(middle)) // 2 - len(title))
    header = f"{title}{' ' * pad}{middle}"
    header += " " * max(1, 78 - len(header) - len(title)) + title
    help_lines = command.help_text().splitlines()
    usage = help_lines[0].removeprefix("Usage: ") if help_lines else command.name
    body = help_lines[2:] if len(help_lines) > 2 else []
    lines = [header, "", "NAME", f"       {command.name} - {command.summary}", "", "SYNOPSIS", f"       {usage}", ""]
    lines.append("DESCRIPTION")
    for line in body:
        lines.append(f"       {line}" if line else "")
    while lines and not lines[-1]:
        lines.pop()
    lines += ["", f"{'':<30}emulator 0.1{'':<30}{title}"]
    return "\n".join(lines).rstrip() + "\n"


class Echo(Command):
    name = "echo"
    summary = "print arguments (-n: no newline, -e: interpret backslash escapes)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        newline, escapes = True, False
        while words and len(words[0]) > 1 and words[0][0] == "-" and set(words[0][1:]) <= set("neE"):
            for flag in words.pop(0)[1:]:
                if flag == "n":
                    newline = False
                else:
                    escapes = flag == "e"
        text = " ".join(words)
        if escapes:
            text, stop = unescape(text)
            if stop:
                newline = False
        ctx.out(text + ("\n" if newline else ""))
        return 0


def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes of ``echo -e`` and ``printf``; the flag is True after ``\\c``."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
              "e": "\x1b", "E": "\x1b"}
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "c":
            return "".join(out), True
        elif nxt == "0" or nxt in "1234567":
            start = i + 2 if nxt == "0" else i + 1
            j = start
            while j < len(text) and j < start + 3 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[start:j] or "0", 8) & 0xFF))
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(text) and j < i + 4 and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(text[i + 2:j], 16)) if j > i + 2 else "\\x")
            i = j
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out), False


_FORMAT = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcsb%q])")


class Printf(Command):
    name = "printf"
    summary = "format and print data (%s %d %f %x %c %b %q, widths and precision)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        if words and words[0] == "--":
            words = words[1:]
        if not words:
            raise ctx.fail("bash: printf: usage: printf [-v var] format [arguments]", 2)
        fmt, values = words[0], words[1:]
        status = 0
        out: list[str] = []
        for _ in range(10_000):
            text, used, stop, bad = _printf_once(fmt, values)
            out.append(text)
            for word in bad:
                ctx.err(f"bash: printf: {word}: invalid number\n")
                status = 1
            values = values[used:]
            if stop or not values or used == 0:
                break
        ctx.out("".join(out))
        return status


def _number(word: str, bad: list[str], integer: bool) -> float | int:
    text = word.strip()
    if len(text) >= 2 and text[0] in "'\"":
        return ord(text[1])
    try:
        if integer:
            return int(text, 0) if text.lower().startswith(("0x", "-0x")) else int(text or "0")
        return float(text or "0")
    except ValueError:
        bad.append(word)
        match = re.match(r"\s*[-+]?\d+", text)
        return int(match.group()) if match else 0


def _printf_once(fmt: str, values: list[str]) -> tuple[str, int, bool, list[str]]:
    """One pass of the format: (text, values used, stopped by \\c, invalid numbers)."""
    out: list[str] = []
    used = 0
    bad: list[str] = []
    pos = 0

    def take() -> str:
        nonlocal used
        value = values[used] if used < len(values) else ""
        used += 1
        return value

    for match in _FORMAT.finditer(fmt):
        literal, stop = unescape(fmt[pos:match.start()])
        out.append(literal)
        if stop:
            return "".join(out), used, True, bad
        pos = match.end()
        flags, width, precision, conv = match.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(int(_number(take(), bad, True)))
        if precision == "*":
            precision = str(int(_number(take(), bad, True)))
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        arg = take()
        if conv in "diouxX":
            value = int(_number(arg, bad, True))
            if conv == "u":
                conv = "d"
            out.append((spec + conv) % value)
        elif conv in "eEfgG":
            out.append((spec + conv) % float(_number(arg, bad, False)))
        elif conv == "c":
            out.append((spec + "s") % arg[:1])
        elif conv == "b":
            text, stop = unescape(arg)
            out.append((spec + "s") % text)
            if stop:
                return "".join(out), used, True, bad
        elif conv == "q":
            out.append((spec + "s") % _bash_quote(arg))
        else:
            out.append((spec + "s") % arg)
    literal, stop = unescape(fmt[pos:])
    out.append(literal)
    return "".join(out), used, stop, bad


def _bash_quote(text: str) -> str:
    """``printf %q``: bash's backslash quoting (``$'...'`` for control characters)."""
    if not text:
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        escaped = text.encode("unicode_escape").decode("ascii").replace("'", "\\'")
        return f"$'{escaped}'"
    return "".join("\\" + c if c in " \t\n'\"\\$`!*?[](){}<>|&;#~^," and not (c == "~" and i) else c
                   for i, c in enumerate(text))


class Hostname(Command):
    name = "hostname"
    summary = "show the name of the current host"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--fqdn", "--long", action="store_true", help="the fully qualified domain name")
        parser.add_argument("-s", "--short", action="store_true", help="the short host name")
        parser.add_argument("-i", "--ip-address", action="store_true", help="the host's addresses")
        parser.add_argument("-I", "--all-ip-addresses", action="store_true", help="every address of the host")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.ip_address or args.all_ip_addresses:
            addresses = [ctx.host.mgmt_ipv4] + [n.ipv4 for n in ctx.host.nics if getattr(n, "ipv4", "")]
            ctx.outln(" ".join(addresses) + (" " if args.all_ip_addresses else ""))
        elif args.fqdn:
            ctx.outln(f"{ctx.host.name}.{ctx.cluster.domain}")
        else:
            ctx.outln(ctx.host.name)
        return 0


class Whoami(Command):
    name = "whoami"
    summary = "print the user name"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        ctx.outln("alice")
        return 0


class Nproc(Command):
    name = "nproc"
    summary = "print the number of processing units available"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--all", action="store_true", help="print the number of installed processors")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        cpu = ctx.host.cpu
        ctx.outln(str(cpu.sockets * cpu.cores_per_socket * cpu.threads_per_core))
        return 0


class Id(Command):
    name = "id"
    summary = "print user and group ids"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-u", "--user", action="store_true", help="only the user id")
        parser.add_argument("-n", "--name", action="store_true", help="a name instead of a number")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.user:
            ctx.outln("alice" if args.name else "1001")
        else:
            ctx.outln("uid=1001(alice) gid=1001(alice) groups=1001(alice),44(video),1500(hpc-users)")
        return 0


class Uname(Command):
    name = "uname"
    summary = "print system information (-a -s -n -r -v -m -o)"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        for short, long, text in (("-a", "--all", "all of the below"), ("-s", "--kernel-name", "kernel name"),
                                  ("-n", "--nodename", "host name"), ("-r", "--kernel-release", "kernel release"),
                                  ("-v", "--kernel-version", "kernel version"), ("-m", "--machine", "machine"),
                                  ("-p", "--processor", "processor type"), ("-i", "--hardware-platform", "platform"),
                                  ("-o", "--operating-system", "operating system")):
            parser.add_argument(short, long, action="store_true", help=text)

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        v = ctx.cluster.versions
        fields = [("kernel_name", "Linux"), ("nodename", ctx.host.name), ("kernel_release", v.kernel),
                  ("kernel_version", v.kernel_build), ("machine", "x86_64"), ("processor", "x86_64"),
                  ("hardware_platform", "x86_64"), ("operating_system", "GNU/Linux")]
        chosen = [value for key, value in fields if args.all or getattr(args, key)]
        ctx.outln(" ".join(chosen or ["Linux"]))
        return 0


def boot_offset(node: Node) -> float:
    """When the host last booted, as an offset from the clock's start."""
    return node.health.boots[-1].offset_s if node.health.boots else -86_400.0


def load_average(ctx: Context, node: Node) -> tuple[float, float, float]:
    """1, 5 and 15-minute load of a host (the same figures as /proc/loadavg)."""
    return hostfs.load_average(ctx.cluster, node)


class Uptime(Command):
    name = "uptime"
    summary = "tell how long the system has been running, and its load"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-p", "--pretty", action="store_true", help="show uptime in pretty format")
        parser.add_argument("-s", "--since", action="store_true", help="system up since")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        boot = boot_offset(ctx.host)
        up = int(ctx.clock.elapsed - boot)
        if args.since:
            ctx.outln(ctx.clock.at(boot).strftime("%Y-%m-%d %H:%M:%S"))
            return 0
        days, rest = divmod(up, 86_400)
        hours, minutes = rest // 3600, rest % 3600 // 60
        if args.pretty:
            weeks, days_left = divmod(days, 7)
            parts = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in
                     ((weeks, "week"), (days_left, "day"), (hours, "hour"), (minutes, "minute")) if n]
            ctx.outln("up " + ", ".join(parts or ["0 minutes"]))
            return 0
        text = ctx.clock.now().strftime(" %H:%M:%S up ")
        if days:
            text += f"{days} day{'s' if days != 1 else ''}, "
        text += f"{hours:2d}:{minutes:02d}, " if hours else f"{minutes} min, "
        one, five, fifteen = load_average(ctx, ctx.host)
        text += f" 1 user,  load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"
        ctx.outln(text)
        return 0


# -- date -----------------------------------------------------------------------------
_RELATIVE = re.compile(r"^([-+]?\d+)\s*(sec|second|min|minute|hour|day|week)s?(\s+ago)?$")
_UNITS = {"sec": 1, "second": 1, "min": 60, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800}


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


class Date(Command):
    name = "date"
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

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
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


# -- shell state --------------------------------------------------------------------------
class Cd(Command):
    name = "cd"
    summary = "change the working directory"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = [w for w in ctx.argv[1:] if w != "--"]
        if len(words) > 1:
            raise ctx.fail("bash: cd: too many arguments", 1)
        target = words[0] if words else ctx.env.get("HOME", "/home/alice")
        shell = ctx.shell
        if target == "-":
            target = ctx.env.get("OLDPWD", "")
            if not target:
                raise ctx.fail("bash: cd: OLDPWD not set", 1)
            ctx.outln(target)
        fs = ctx.fs
        try:
            node_is_dir = fs.isdir(target)
            fs.lookup(target)
        except Exception as exc:  # FsError: missing or under a file
            raise ctx.fail(f"bash: cd: {target}: {getattr(exc, 'strerror', exc)}", 1) from None
        if not node_is_dir:
            raise ctx.fail(f"bash: cd: {target}: Not a directory", 1)
        shell.cwd = fs.abspath(target)
        return 0


class Pwd(Command):
    name = "pwd"
    summary = "print the working directory"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-L", action="store_true", help="logical path (the default)")
        parser.add_argument("-P", action="store_true", help="physical path")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        ctx.outln(ctx.cwd)
        return 0


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Export(Command):
    name = "export"
    summary = "set environment variables for later commands (export NAME=value)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = [w for w in ctx.argv[1:] if w not in ("--", "-p")]
        if not words:
            for name in sorted(ctx.shell.env):
                value = ctx.shell.env[name].replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                ctx.outln(f'declare -x {name}="{value}"')
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if not _NAME.match(name):
                ctx.err(f"bash: export: `{word}': not a valid identifier\n")
                status = 1
                continue
            ctx.shell.export(name, value if eq else None)
        return status


class Unset(Command):
    name = "unset"
    summary = "remove shell variables"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        status = 0
        for name in ctx.argv[1:]:
            if name in ("-v", "-f"):
                continue
            if not _NAME.match(name):
                ctx.err(f"bash: unset: `{name}': not a valid identifier\n")
                status = 1
            else:
                ctx.shell.unset(name)
        return status


class Env(Command):
    name = "env"
    summary = "print the environment, or run a command with changed variables"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        env = dict(ctx.env)
        while words and words[0] in ("-i", "--ignore-environment", "-", "--"):
            if words[0] in ("-i", "--ignore-environment", "-"):
                env = {}
            words = words[1:]
        if words and words[0].startswith("-"):
            raise ctx.fail(f"env: invalid option -- '{words[0].lstrip('-')[:1]}'\nTry 'env --help' for more information.", 125)
        while words and "=" in words[0] and _NAME.match(words[0].split("=", 1)[0]):
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        if not words:
            for name, value in env.items():
                ctx.outln(f"{name}={value}")
            return 0
        if registry.lookup(words[0]) is None:
            raise ctx.fail(f"env: ‘{words[0]}’: No such file or directory", 127)
        result = ctx.run(words, stdin=ctx.stdin, env=env)
        ctx.out(result.stdout)
        ctx.err(result.stderr)
        return result.status


class History(Command):
    name = "history"
    summary = "show the lines entered in this session (history N: the last N; -c clears)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        history = ctx.session.history
        if words[:1] == ["-c"]:
            history.clear()
            return 0
        count = len(history)
        if words:
            if not words[0].isdecimal():
                raise ctx.fail(f"bash: history: {words[0]}: numeric argument required", 1)
            count = int(words[0])
        first = ctx.session.history_base + len(history) - min(count, len(history)) + 1
        for number, line in enumerate(history[len(history) - min(count, len(history)):], start=first):
            ctx.outln(f"{number:5d}  {line}")
        return 0


class Clear(Command):
    name = "clear"
    summary = "clear the terminal screen"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        ctx.out("\x1b[H\x1b[2J")
        return 0


class Test(Command):
    name = "test"
    summary = "evaluate a conditional expression ([ EXPR ], test EXPR): -f -d -e -s -n -z, = != -eq -lt ..."
    section = SECTION
    aliases = ("[", "[[")
    parses_args = False
    _CLOSERS = {"[": "]", "[[": "]]"}

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        name = ctx.argv[0]
        if name in self._CLOSERS:
            closer = self._CLOSERS[name]
            if not words or words[-1] != closer:
                raise ctx.fail(f"bash: {name}: missing `{closer}'", 2)
            words = words[:-1]
        try:
            return 0 if self._or(ctx, words) else 1
        except ValueError as exc:
            raise ctx.fail(f"bash: {name}: {exc}", 2) from None

    def _or(self, ctx: Context, words: list[str]) -> bool:
        for op in ("-o", "||"):
            if op in words:
                i = words.index(op)
                return self._or(ctx, words[:i]) or self._or(ctx, words[i + 1:])
        for op in ("-a", "&&"):
            if op in words[1:-1]:
                i = words.index(op, 1)
                return self._or(ctx, words[:i]) and self._or(ctx, words[i + 1:])
        return self._expr(ctx, words)

    def _expr(self, ctx: Context, words: list[str]) -> bool:
        if not words:
            return False
        if words[0] == "!":
            return not self._expr(ctx, words[1:])
        if len(words) == 1:
            return words[0] != ""
        if len(words) == 2:
            return self._unary(ctx, words[0], words[1])
        if len(words) == 3:
            return self._binary(words[0], words[1], words[2])
        raise ValueError("too many arguments")

    @staticmethod
    def _unary(ctx: Context, op: str, operand: str) -> bool:
        fs = ctx.fs
        if op == "-n":
            return operand != ""
        if op == "-z":
            return operand == ""
        if op in ("-e", "-a"):
            return fs.exists(operand)
        if op == "-d":
            return fs.isdir(operand)
        if op in ("-f", "-s", "-r", "-w", "-x"):
            if not fs.exists(operand) or fs.isdir(operand) and op in ("-f", "-s"):
                return False
            return op != "-s" or fs.read(operand) != ""
        raise ValueError(f"{op}: unary operator expected")

    @staticmethod
    def _binary(left: str, op: str, right: str) -> bool:
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        numeric = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
                   "-gt": int.__gt__, "-ge": int.__ge__}
        if op in numeric:
            for value in (left, right):
                if not value.strip().lstrip("-").isdecimal():
                    raise ValueError(f"{value}: integer expression expected")
            return bool(numeric[op](int(left), int(right)))
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        raise ValueError(f"{op}: binary operator expected")


class Read(Command):
    name = "read"
    summary = "read a line from standard input into variables (-r, -p PROMPT, -a ARRAY ignored)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        raw = False
        while words and words[0].startswith("-") and len(words[0]) > 1:
            flag = words.pop(0)
            if flag == "-r":
                raw = True
            elif flag in ("-p", "-t", "-d", "-n", "-u") and words:
                value = words.pop(0)
                if flag == "-p":
                    ctx.err(value)
            elif flag == "--":
                break
        for name in words:
            if not _NAME.match(name):
                raise ctx.fail(f"bash: read: `{name}': not a valid identifier", 1)
        line = self._next_line(ctx)
        if line is None:
            for name in words or ["REPLY"]:
                ctx.shell.set_var(name, "")
            return 1
        if not raw:
            line = re.sub(r"\\(.)", r"\1", line)
        names = words or ["REPLY"]
        if not words:
            ctx.shell.set_var("REPLY", line)
            return 0
        fields = line.split(None, len(names) - 1)
        for i, name in enumerate(names):
            ctx.shell.set_var(name, fields[i].strip() if i < len(fields) else "")
        return 0

    @staticmethod
    def _next_line(ctx: Context) -> str | None:
        inputs = ctx.shell.inputs
        if inputs and ctx.stdin is inputs[-1].rest:
            return inputs[-1].read_line()
        if not ctx.stdin:
            return None
        return ctx.stdin.split("\n", 1)[0]


class TrueCommand(Command):
    name = "true"
    summary = "do nothing, successfully"
    section = SECTION
    aliases = (":",)
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        return 0


class FalseCommand(Command):
    name = "false"
    summary = "do nothing, unsuccessfully"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        return 1


# -- lookup --------------------------------------------------------------------------------
class Which(Command):
    name = "which"
    summary = "show where a command lives"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-a", action="store_true", help="print all matching paths")
        parser.add_argument("names", nargs="*", metavar="COMMAND", help="command names")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        status = 0
        for name in args.names:
            path = command_path(name) if registry.lookup(name) else None
            if path:
                ctx.outln(path)
            else:
                status = 1
        return status


class Type(Command):
    name = "type"
    summary = "tell how a name would be interpreted as a command"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        status = 0
        for name in [w for w in ctx.argv[1:] if not w.startswith("-")]:
            if name in ("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "in", "{", "}",
                        "!", "case", "esac", "function", "select", "time"):
                ctx.outln(f"{name} is a shell keyword")
            elif name in ctx.shell.aliases:
                ctx.outln(f"{name} is aliased to `{ctx.shell.aliases[name]}'")
            elif name in SHELL_BUILTINS and registry.lookup(name):
                ctx.outln(f"{name} is a shell builtin")
            elif registry.lookup(name):
                ctx.outln(f"{name} is {command_path(name)}")
            else:
                ctx.err(f"bash: type: {name}: not found\n")
                status = 1
        return status


# -- hosts ---------------------------------------------------------------------------------
class Ssh(Command):
    name = "ssh"
    summary = "log in to another host, or run one command there (ssh node03 nvidia-smi)"
    section = SECTION
    usage_status = 255
    parses_args = False
    _WITH_VALUE = set("bcDEeFIiJLlmOopQRSWw")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        i = 0
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            flag = words[i]
            if flag in ("-h", "--help"):
                ctx.err(_SSH_USAGE)
                return 255
            i += 2 if flag[-1] in self._WITH_VALUE and len(flag) == 2 else 1
        if i >= len(words):
            ctx.err(_SSH_USAGE)
            return 255
        target = words[i].split("@")[-1]
        remote = words[i + 1:]
        shell = ctx.shell
        node = ctx.cluster.node(target)
        if node is None:
            if ctx.cluster.bmc_host(target):
                raise ctx.fail(f"ssh: connect to host {target} port 22: Connection refused", 255)
            raise ctx.fail(f"ssh: Could not resolve hostname {target}: Name or service not known", 255)
        if not node.health.os_up:
            raise ctx.fail(f"ssh: connect to host {target} port 22: No route to host", 255)
        if not remote:
            from emulator.cluster.ids import rng

            r = rng(ctx.cluster.seed, node.name, "last-login")
            last = ctx.clock.at(-r.uniform(3_600.0, 86_400.0))
            src = ctx.host.mgmt_ipv4
            shell.push_host(node)
            ctx.outln(f"Last login: {last.strftime('%a %b %e %H:%M:%S %Y')} from {src}")
            return 0
        line = " ".join(remote)
        return (yield from shell.run_remote(line, node, ctx))


_SSH_USAGE = ("usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface]\n"
              "           [-b bind_address] [-c cipher_spec] [-D [bind_address:]port]\n"
              "           [-E log_file] [-e escape_char] [-F configfile] [-I pkcs11]\n"
              "           [-i identity_file] [-J [user@]host[:port]] [-L address]\n"
              "           [-l login_name] [-m mac_spec] [-O ctl_cmd] [-o option] [-p port]\n"
              "           [-Q query_option] [-R address] [-S ctl_path] [-W host:port]\n"
              "           [-w local_tun[:remote_tun]] destination [command [argument ...]]\n")


class Ping(Command):
    name = "ping"
    summary = "send ICMP echo requests to a host (-c COUNT, -i INTERVAL, -q)"
    section = SECTION
    usage_status = 2
    notes = "Without -c, ping stops by itself after 10 packets here (Ctrl-C stops it sooner)."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-c", dest="count", type=int, metavar="COUNT", help="stop after sending COUNT packets")
        parser.add_argument("-i", dest="interval", type=float, default=1.0, metavar="INTERVAL",
                            help="seconds between sending each packet")
        parser.add_argument("-W", dest="timeout", type=float, metavar="TIMEOUT", help="time to wait for a response")
        parser.add_argument("-q", dest="quiet", action="store_true", help="quiet output")
        parser.add_argument("-n", dest="numeric", action="store_true", help="no reverse DNS name resolution")
        parser.add_argument("host", metavar="HOST", help="host name or address")

    def usage_error(self, message: str) -> str:
        if "required" in message:
            return "ping: usage error: Destination address required"
        return f"ping: {message}"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        target = _resolve(ctx, args.host)
        if target is None:
            raise ctx.fail(f"ping: {args.host}: Name or service not known", 2)
        if args.count is not None and args.count <= 0:
            raise ctx.fail(f"ping: invalid argument: '{args.count}': out of range: 1 <= value <= 9223372036854775807", 1)
        name, address, up = target
        count = args.count or 10
        interval = max(0.2, min(args.interval, 60.0))
        shown = address if args.numeric else name
        from emulator.cluster.ids import rng

        ctx.outln(f"PING {args.host} ({address}) 56(84) bytes of data.")
        times: list[float] = []
        for seq in range(1, count + 1):
            if up:
                rtt = rng(ctx.cluster.seed, "ping", address, int(ctx.clock.elapsed), seq).uniform(0.085, 0.19)
                times.append(rtt)
                if not args.quiet:
                    ctx.outln(f"64 bytes from {shown} ({address}): icmp_seq={seq} ttl=64 time={rtt:.3f} ms")
            elif not args.quiet and seq % 3 == 0:
                for missed in range(seq - 2, seq + 1):
                    ctx.outln(f"From {ctx.host.mgmt_ipv4} icmp_seq={missed} Destination Host Unreachable")
            if seq < count:
                yield interval
        if not up and not args.quiet:
            for missed in range(count - count % 3 + 1, count + 1):
                ctx.outln(f"From {ctx.host.mgmt_ipv4} icmp_seq={missed} Destination Host Unreachable")
        elapsed = int((count - 1) * interval * 1000 + (3 if up else 30))
        ctx.outln()
        ctx.outln(f"--- {args.host} ping statistics ---")
        if up:
            mean = sum(times) / len(times)
            mdev = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
            ctx.outln(f"{count} packets transmitted, {count} received, 0% packet loss, time {elapsed}ms")
            ctx.outln(f"rtt min/avg/max/mdev = {min(times):.3f}/{mean:.3f}/{max(times):.3f}/{mdev:.3f} ms")
            return 0
        ctx.outln(f"{count} packets transmitted, 0 received, +{count} errors, 100% packet loss, time {elapsed}ms")
        ctx.outln(f"pipe {min(count, 3)}")
        return 1


def _resolve(ctx: Context, name: str) -> tuple[str, str, bool] | None:
    """(reverse name, address, answers) for a host name, FQDN, BMC name or address."""
    cluster = ctx.cluster
    domain = cluster.domain
    for node in cluster.nodes.values():
        if name in (node.name, f"{node.name}.{domain}", node.mgmt_ipv4):
            return f"{node.name}.{domain}", node.mgmt_ipv4, node.health.os_up
        bmc = node.bmc
        if bmc is not None and name in (bmc.hostname, f"{bmc.hostname}.{domain}", bmc.ipv4):
            return f"{bmc.hostname}.{domain}", bmc.ipv4, True
    if name in ("localhost", "127.0.0.1"):
        return "localhost", "127.0.0.1", True
    return None


class Exit(Command):
    name = "exit"
    summary = "leave the current host (back to the previous one after ssh)"
    section = SECTION
    aliases = ("logout",)
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        status = ctx.shell.last_status
        if words:
            if not words[0].lstrip("-").isdecimal():
                ctx.err(f"bash: exit: {words[0]}: numeric argument required\n")
                status = 2
            else:
                status = int(words[0]) & 0xFF
        if ctx.shell.subshells or ctx.shell.frames[-1].remote:
            raise ExitShell(status)
        host = ctx.host.name
        ctx.outln("logout")
        if ctx.shell.pop_host():
            ctx.outln(f"Connection to {host} closed.")
        return status


class Source(Command):
    name = "source"
    summary = "run the commands of a file in this shell (also: . FILE)"
    section = SECTION
    aliases = (".",)
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        if len(ctx.argv) < 2:
            raise ctx.fail(f"bash: {ctx.argv[0]}: filename argument required\n"
                           f"{ctx.argv[0]}: usage: {ctx.argv[0]} filename [arguments]", 2)
        path = ctx.argv[1]
        try:
            text = ctx.fs.read(path)
        except Exception as exc:  # noqa: BLE001 - FsError: missing, a directory
            raise ctx.fail(f"bash: {path}: {getattr(exc, 'strerror', exc)}", 1) from None
        try:
            return (yield from ctx.shell.run_source(text, ctx))
        except ShellSyntaxError as exc:
            raise ctx.fail(f"bash: {path}: {exc.message}", 2) from None


class Set(Command):
    name = "set"
    summary = "list shell variables; options such as -e, -u, -x, -o pipefail are accepted and ignored"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        if not words:
            variables = {**ctx.shell.env, **ctx.shell.vars}
            for name in sorted(variables):
                ctx.outln(f"{name}={shlex.quote(variables[name])}")
            return 0
        i = 0
        while i < len(words):
            word = words[i]
            if word in ("-o", "+o"):
                i += 1
                if i < len(words) and words[i] not in _SET_OPTIONS:
                    raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
            elif word[:1] in "-+" and len(word) > 1 and word != "--":
                for letter in word[1:]:
                    if letter == "o":
                        i += 1
                        if i < len(words) and words[i] not in _SET_OPTIONS:
                            raise ctx.fail(f"bash: set: {words[i]}: invalid option name", 1)
                    elif letter not in "abefhkmnptuvxBCHP":
                        raise ctx.fail(f"bash: set: {word[0]}{letter}: invalid option\n"
                                       "set: usage: set [-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]", 2)
            i += 1
        return 0


_SET_OPTIONS = {"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand",
                "history", "ignoreeof", "interactive-comments", "keyword", "monitor", "noclobber", "noexec",
                "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix", "privileged",
                "verbose", "vi", "xtrace"}


class Alias(Command):
    name = "alias"
    summary = "define or list aliases (alias ll='ls -alF')"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        aliases = ctx.shell.aliases
        words = [w for w in ctx.argv[1:] if w != "-p"]
        if not words:
            for name in sorted(aliases):
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            return 0
        status = 0
        for word in words:
            name, eq, value = word.partition("=")
            if eq:
                if not name or any(c in name for c in " /$`=\"'"):
                    ctx.err(f"bash: alias: `{name}': invalid alias name\n")
                    status = 1
                else:
                    aliases[name] = value
            elif name in aliases:
                ctx.outln(f"alias {name}={shlex.quote(aliases[name])}")
            else:
                ctx.err(f"bash: alias: {name}: not found\n")
                status = 1
        return status


class Unalias(Command):
    name = "unalias"
    summary = "remove aliases (-a: all)"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        aliases = ctx.shell.aliases
        if ctx.argv[1:2] == ["-a"]:
            aliases.clear()
            return 0
        status = 0
        for name in ctx.argv[1:]:
            if aliases.pop(name, None) is None:
                ctx.err(f"bash: unalias: {name}: not found\n")
                status = 1
        return status


class Printenv(Command):
    name = "printenv"
    summary = "print all or part of the environment"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        names = ctx.argv[1:]
        if not names:
            for name, value in ctx.env.items():
                ctx.outln(f"{name}={value}")
            return 0
        status = 0
        for name in names:
            if name in ctx.env:
                ctx.outln(ctx.env[name])
            else:
                status = 1
        return status


class Sudo(Command):
    name = "sudo"
    summary = "run a command as root (here: as yourself, with the same output)"
    section = SECTION
    parses_args = False
    _WITH_VALUE = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag == "--":
                break
            if flag in self._WITH_VALUE and words:
                words.pop(0)
        if not words:
            raise ctx.fail("usage: sudo -h | -K | -k | -V\nusage: sudo -v [-ABknS] [-g group] [-h host] [-p prompt] "
                           "[-u user]\nusage: sudo [-ABbEHknPS] [-C num] [-D directory] [-g group] [-h host] "
                           "[-p prompt] [-R directory] [-T timeout] [-u user] [VAR=value] [-i|-s] [<command>]", 1)
        if registry.lookup(words[0]) is None:
            raise ctx.fail(f"sudo: {words[0]}: command not found", 1)
        return (yield from ctx.shell.run_streaming(words, ctx))


class Timeout(Command):
    name = "timeout"
    summary = "run a command with a (simulated) time limit; status 124 when it expires"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        while words and words[0].startswith("-") and not _DURATION.match(words[0]):
            flag = words.pop(0)
            if flag in ("-s", "--signal", "-k", "--kill-after") and words:
                words.pop(0)
        if len(words) < 2:
            raise ctx.fail("timeout: missing operand\nTry 'timeout --help' for more information.", 125)
        match = _DURATION.match(words[0])
        if not match:
            raise ctx.fail(f"timeout: invalid time interval ‘{words[0]}’\nTry 'timeout --help' for more information.", 125)
        limit = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}[match.group(2)]
        if registry.lookup(words[1]) is None:
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


# -- timing --------------------------------------------------------------------------------
_DURATION = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")


class Sleep(Command):
    name = "sleep"
    summary = "wait for a number of (simulated) seconds; suffixes s, m, h, d"
    section = SECTION
    parses_args = False

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        if words[:1] in (["--help"], ["-h"]):
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
        return self._wait(min(total, SLEEP_LIMIT_S))

    @staticmethod
    def _wait(total: float) -> Outcome:
        for _ in range(5):
            if total <= 0:
                return 0
            step = min(1.0, total)
            total -= step
            yield step
        if total > 0:
            yield total
        return 0


class Watch(Command):
    name = "watch"
    summary = "run a command every N simulated seconds and show its output (bounded)"
    section = SECTION
    notes = (f"Unlike procps watch, -c takes a number of refreshes (default {WATCH_COUNT}) after which "
             "watch stops by itself; Ctrl-C stops it sooner.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-n", "--interval", type=float, default=2.0, metavar="SECS",
                            help="seconds to wait between updates")
        parser.add_argument("-c", "--count", type=int, default=WATCH_COUNT, metavar="COUNT",
                            help="number of refreshes before stopping")
        parser.add_argument("-t", "--no-title", action="store_true", help="turn off header")
        parser.add_argument("-d", "--differences", action="store_true", help="highlight changes (accepted, ignored)")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="the command line to run")

    def usage_error(self, message: str) -> str:
        return f"watch: {message}\n\nUsage:\n watch [options] command\n"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if not args.command:
            raise ctx.fail("\nUsage:\n watch [options] command\n", 1)
        interval = max(0.1, min(args.interval, 86_400.0))
        count = max(1, min(args.count, 1_000))
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
        return 0


def commands() -> list[Command]:
    return [Help(), Man(), Echo(), Printf(), Hostname(), Whoami(), Nproc(), Id(), Uname(), Uptime(), Date(), Cd(), Pwd(),
            Export(), Unset(), Env(), History(), Clear(), TrueCommand(), FalseCommand(), Test(), Read(), Which(), Type(), Ssh(),
            Exit(), Ping(), Sleep(), Watch(), Source(), Set(), Alias(), Unalias(), Printenv(), Sudo(), Timeout()]
