"""Processes and memory of a host: ``ps``, ``top``, ``free`` and ``taskset``.

:func:`processes` is the one process table: system daemons, the services of
the model, and on a node running the training job its torchrun agent, the
eight ranks (``pt_main_thread``, pids from ``cluster.training.ranks``) and
their DataLoader workers (``pt_data_worker``), with CPU shares from the step
model. :func:`memory` derives the memory figures from it, so ``free``,
``top``, ``vmstat`` and ``numactl`` agree.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Generator

from emulator.cluster.accounts import uid_of
from emulator.cluster.boots import boot_offset, load_average
from emulator.cluster.ids import rng
from emulator.cluster.processes import Proc, affinity, cpu_split, memory, processes
from emulator.commands.kit.command import Command, Context, Outcome, ParsedCommand, RawCommand
from emulator.commands.kit.regex import RegexError, posix_regex
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import procps_size, ps_cputime, ps_etime, top_cputime
from emulator.commands.kit.usage import getopt_error

SECTION = "Host"


# -- memory ---------------------------------------------------------------------------


# -- processes --------------------------------------------------------------------------------


class Free(ParsedCommand):
    name = "free"
    reads_only = True
    summary = "display amount of free and used memory in the system"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-h", "--human", action="store_true", help="show human-readable output")
        parser.add_argument("-g", "--gibi", action="store_true", help="show output in gibibytes")
        parser.add_argument("-m", "--mebi", action="store_true", help="show output in mebibytes")
        parser.add_argument("-k", "--kibi", action="store_true", help="show output in kibibytes")
        parser.add_argument("-w", "--wide", action="store_true", help="wide output")
        parser.add_argument("-t", "--total", action="store_true", help="show total for RAM + swap")
        parser.add_argument("--help", action="help", help="display this help and exit")

    add_help_flag = False
    usage_status = 1

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\n\nUsage:\n free [options]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        m = memory(ctx.cluster, ctx.host)

        def fmt(kib: int) -> str:
            if args.human:
                return procps_size(kib)
            if args.gibi:
                return str(kib // 1024 // 1024)
            if args.mebi:
                return str(kib // 1024)
            return str(kib)

        if args.wide:
            ctx.outln(" " * 15 + "total        used        free      shared     buffers       cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buffers, m.cached, m.available]
        else:
            ctx.outln(" " * 15 + "total        used        free      shared  buff/cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buff_cache, m.available]
        ctx.outln(f"{'Mem:':<8}" + "".join(f"{fmt(v):>12}" for v in mem))
        ctx.outln(f"{'Swap:':<8}" + "".join(f"{fmt(v):>12}" for v in (0, 0, 0)))
        if args.total:
            ctx.outln(f"{'Total:':<8}" + "".join(f"{fmt(v):>12}" for v in (m.total, m.used, m.free)))
        return 0


# -- top, ps ---------------------------------------------------------------------------------------


def _scaled(kib: int, width: int) -> str:
    """top's memory columns: KiB while it fits, then m/g/t with one decimal."""
    text = str(kib)
    if len(text) <= width:
        return text
    value = float(kib)
    for unit in ("m", "g", "t"):
        value /= 1024
        text = f"{value:.1f}{unit}"
        if len(text) <= width:
            return text
    return text


class Top(ParsedCommand):
    name = "top"
    summary = "display Linux processes (batch mode)"
    section = SECTION
    notes = ("Batch mode only: prints -n iterations (default 1), -d seconds apart on the simulated clock.\n"
             "Each frame lists the 40 busiest processes (all of them with -u or -p); kernel threads are counted\n"
             "in Tasks but not listed.")

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-b", action="store_true", help="batch mode")
        parser.add_argument("-n", type=int, default=1, metavar="NUMBER", help="number of iterations")
        parser.add_argument("-d", type=float, default=3.0, metavar="SECS", help="delay between updates")
        parser.add_argument("-c", action="store_true", help="show command lines")
        parser.add_argument("-u", metavar="USER", help="only this user's processes")
        parser.add_argument("-p", metavar="PIDLIST", help="only these processes")
        parser.add_argument("-o", metavar="FIELD", help="sort by field (%%CPU, %%MEM, PID, RES, TIME+)")
        parser.add_argument("-w", type=int, nargs="?", const=512, metavar="COLS", help="output width")

    usage_status = 1

    def usage_error(self, message: str) -> str:
        return f"top: {getopt_error('top', message).split(': ', 1)[1]}\nUsage:\n  top -hv | -bcEeHiOSs1 -d secs " \
               "-n max -u|U user -p pid(s) -o field -w [cols]"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.n < 1 or args.n > 1000 or args.d < 0:
            raise ctx.fail("top: bad iterations argument" if args.n < 1 or args.n > 1000 else "top: bad delay interval",
                           1)
        return self._frames(ctx, args)

    def _frames(self, ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
        for i in range(args.n):
            if i:
                yield args.d
                ctx.outln()
            self._frame(ctx, args)
        return 0

    def _frame(self, ctx: Context, args: argparse.Namespace) -> None:
        node = ctx.host
        procs = processes(ctx.cluster, node)
        mem = memory(ctx.cluster, node, procs)
        now = ctx.clock.elapsed
        up = int(now - boot_offset(node))
        days, rest = divmod(up, 86_400)
        hours, minutes = rest // 3600, rest % 3600 // 60
        uptxt = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + \
            (f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min")
        one, five, fifteen = load_average(ctx.cluster, node)
        ctx.outln(f"top - {ctx.clock.now():%H:%M:%S} up {uptxt},  1 user,  load average: {one:.2f}, {five:.2f}, "
                  f"{fifteen:.2f}")
        tasks = len(procs) + 640 + rng(ctx.cluster.seed, node.name, "kthreads").randrange(40)
        running = sum(1 for p in procs if p.state.startswith("R"))
        ctx.outln(f"Tasks: {tasks:>3} total, {running:>3} running, {tasks - running:>3} sleeping,   0 stopped,   "
                  "0 zombie")
        us, sy, wa, idle = cpu_split(ctx.cluster, node, 0, procs)
        ctx.outln(f"%Cpu(s): {us:4.1f} us, {sy:4.1f} sy,  0.0 ni, {max(0.0, idle - 0.2):4.1f} id, "
                  f"{wa:4.1f} wa,  0.0 hi,  0.2 si,  0.0 st")
        mib = 1024.0
        ctx.outln(f"MiB Mem : {mem.total / mib:8.1f} total, {mem.free / mib:8.1f} free, {mem.used / mib:8.1f} used, "
                  f"{mem.buff_cache / mib:8.1f} buff/cache")
        ctx.outln(f"MiB Swap: {0.0:8.1f} total, {0.0:8.1f} free, {0.0:8.1f} used. {mem.available / mib:8.1f} avail Mem ")
        ctx.outln()
        ctx.outln("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND")
        shown = procs
        if args.u:
            shown = [p for p in shown if p.user == args.u]
        if args.p:
            try:
                pids = {int(x) for x in args.p.split(",")}
            except ValueError:
                raise ctx.fail(f"top: pid not valid: {args.p}", 1) from None
            shown = [p for p in shown if p.pid in pids]
        key = (args.o or "%CPU").upper()
        sorters = {"%CPU": lambda p: p.cpu_pct, "%MEM": lambda p: p.rss_kib, "RES": lambda p: p.rss_kib,
                   "PID": lambda p: -p.pid, "TIME+": lambda p: p.cpu_time_s(now)}
        if key not in sorters:
            raise ctx.fail(f"top: unrecognized field name '{args.o}'", 1)
        shown = sorted(shown, key=lambda p: (sorters[key](p), -p.pid), reverse=True)
        limit = 40 if not (args.u or args.p) else len(shown)
        for p in shown[:limit]:
            state = p.state[0]
            cmd = p.args if args.c else p.comm
            ctx.outln(f"{p.pid:>7} {p.user:<8} {20 + p.nice:>3} {p.nice:>3} {_scaled(p.vsz_kib, 7):>7} "
                      f"{_scaled(p.rss_kib, 6):>6} {_scaled(p.shr_kib, 6):>6} {state} {p.cpu_pct:5.1f} "
                      f"{100.0 * p.rss_kib / mem.total:5.1f} {top_cputime(p.cpu_time_s(now)):>9} {cmd}")


def _ps_start(ctx: Context, start_s: float) -> str:
    when = ctx.clock.at(start_s)
    if ctx.clock.elapsed - start_s < 86_400:
        return when.strftime("%H:%M")
    if when.year == ctx.clock.now().year:
        return when.strftime("%b%d")
    return when.strftime("%Y")


PS_FIELDS = {
    "pid": ("PID", ">"), "ppid": ("PPID", ">"), "user": ("USER", "<"), "comm": ("COMMAND", "<"),
    "args": ("COMMAND", "<"), "cmd": ("CMD", "<"), "%cpu": ("%CPU", ">"), "pcpu": ("%CPU", ">"),
    "%mem": ("%MEM", ">"), "pmem": ("%MEM", ">"), "rss": ("RSS", ">"), "vsz": ("VSZ", ">"), "stat": ("STAT", "<"),
    "etime": ("ELAPSED", ">"), "time": ("TIME", ">"), "nlwp": ("NLWP", ">"), "tty": ("TT", "<"),
    "lstart": ("STARTED", "<"), "start": ("STARTED", ">"), "psr": ("PSR", ">"), "uid": ("UID", ">"),
    "euid": ("EUID", ">"), "ruid": ("RUID", ">"),
}


#: procps' default column widths for -o fields.
PS_WIDTHS = {"pid": 7, "ppid": 7, "user": 8, "comm": 15, "%cpu": 4, "pcpu": 4, "%mem": 4, "pmem": 4, "rss": 5,
             "vsz": 6, "stat": 4, "etime": 11, "time": 8, "nlwp": 4, "tty": 8, "psr": 3, "uid": 5, "euid": 5,
             "ruid": 5}


class Ps(RawCommand):
    name = "ps"
    summary = "report a snapshot of the current processes"
    section = SECTION
    add_help_flag = False
    description = ("ps takes BSD (aux), UNIX (-ef) and GNU (--sort) options, as procps does. Without options it\n"
                   "shows this shell's processes. -o fields: pid, ppid, user, comm, args, cmd, %cpu, %mem, rss,\n"
                   "vsz, stat, etime, time, nlwp, tty, lstart, start, psr.")
    notes = "Supported: ps aux, ps -ef, ps -u USER, ps -p PID[,PID] -o FIELD[,FIELD], --sort=[-]FIELD, --no-headers."

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        bsd, full, headers = False, False, True
        fields: list[str] = []
        titles: dict[str, str] = {}
        pids: set[int] | None = None
        users: set[str] | None = None
        sort = ""
        all_procs = False
        error = ("error: {}\n\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n"
                 "  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.")

        def format_list(spec: str) -> list[str]:
            """``pid,comm=NAME``: field names, with any header given after ``=`` remembered."""
            if not spec.strip():
                raise ctx.fail("error: improper format list\n\nUsage:\n ps [options]", 1)
            names = []
            for item in spec.split(","):
                name, eq, head = item.strip().partition("=")
                names.append(name.lower())
                if eq:
                    titles[name.lower()] = head
            return names

        def parse_pids(spec: str) -> set[int]:
            try:
                return {int(x) for x in spec.replace(" ", ",").split(",") if x}
            except ValueError:
                raise ctx.fail("error: process ID list syntax error\n\nUsage:\n ps [options]", 1) from None

        queue = list(words)
        while queue:
            w = queue.pop(0)
            if w == "--help":
                ctx.out("\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n"
                        "  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n")
                return 0
            if w.startswith("--"):
                name, eq, val = w.partition("=")
                if name in ("--no-headers", "--no-heading"):
                    headers = False
                    continue
                if name not in ("--sort", "--pid", "--user", "--format"):
                    raise ctx.fail(error.format("unknown gnu long option"), 1)
                val = val if eq else (queue.pop(0) if queue else "")
                if name == "--sort":
                    sort = val
                elif name == "--pid":
                    pids = parse_pids(val)
                elif name == "--user":
                    users = set(val.split(","))
                else:
                    fields += format_list(val)
                continue
            unix = w.startswith("-")
            chars = w[1:] if unix else w
            if not chars:
                raise ctx.fail(error.format("unsupported option (BSD syntax)"), 1)
            for k, c in enumerate(chars):
                rest = chars[k + 1:]
                if c in "oOpuUC" and (unix or c in "op"):
                    val = rest or (queue.pop(0) if queue else "")
                    if c in "oO":
                        fields += format_list(val)
                    elif c == "p":
                        pids = parse_pids(val)
                    else:
                        users = set(val.split(","))
                    break
                if c in "eA" or (not unix and c in "ax"):
                    all_procs = True
                elif c in "fF" and unix:
                    full = True
                elif c == "u" and not unix:
                    bsd = True
                elif c in "wf":
                    continue
                else:
                    raise ctx.fail(error.format("unsupported option (BSD syntax)" if not unix else
                                                "unsupported SysV option"), 1)
        node = ctx.host
        procs = processes(ctx.cluster, node)
        mem = memory(ctx.cluster, node, procs)
        now = ctx.clock.elapsed
        if pids is not None:
            procs = [p for p in procs if p.pid in pids]
        if users is not None:
            procs = [p for p in procs if p.user in users]
        if not all_procs and pids is None and users is None:
            shell_pid = 4000 + int(now) % 1000
            procs = [Proc(shell_pid, 3999, "alice", "bash", "-bash", 0.0, 5_300, 8_900, 3_500, "Ss", now - 60, tty="pts/0"),
                     Proc(shell_pid + 1, shell_pid, "alice", "ps", "ps", 0.0, 1_600, 10_100, 1_300, "R+", now,
                          tty="pts/0")]
        if sort:
            key = sort.lstrip("-+").lower()
            getter = {"%cpu": lambda p: p.cpu_pct, "pcpu": lambda p: p.cpu_pct, "%mem": lambda p: p.rss_kib,
                      "pmem": lambda p: p.rss_kib, "rss": lambda p: p.rss_kib, "pid": lambda p: p.pid,
                      "vsz": lambda p: p.vsz_kib, "time": lambda p: p.cpu_time_s(now)}.get(key)
            if getter is None:
                raise ctx.fail("error: unknown sort specifier\n\nUsage:\n ps [options]", 1)
            procs = sorted(procs, key=getter, reverse=sort.startswith("-"))
        missing = pids is not None and not procs
        pct_mem = lambda p: 100.0 * p.rss_kib / mem.total  # noqa: E731
        if fields:
            heads = [titles.get(f, PS_FIELDS.get(f, ("", ""))[0]) for f in fields]
            self._custom(ctx, procs, fields, heads if headers and any(heads) else None, pct_mem, now)
        elif bsd:
            if headers:
                ctx.outln("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND")
            for p in procs:
                ctx.outln(f"{p.user:<8} {p.pid:>7} {p.cpu_pct:>4.1f} {pct_mem(p):>4.1f} {p.vsz_kib:>6} {p.rss_kib:>5} "
                          f"{p.tty:<8} {p.state:<4} {_ps_start(ctx, p.start_s):>5} "
                          f"{ps_cputime(p.cpu_time_s(now), False):>6} {p.args}")
        elif full:
            if headers:
                ctx.outln("UID          PID    PPID  C STIME TTY          TIME CMD")
            for p in procs:
                ctx.outln(f"{p.user:<8} {p.pid:>7} {p.ppid:>7} {min(99, int(p.cpu_pct)):>2} "
                          f"{_ps_start(ctx, p.start_s):<5} {p.tty:<8} {ps_cputime(p.cpu_time_s(now), True):>8} {p.args}")
        else:
            if headers:
                ctx.outln("    PID TTY          TIME CMD")
            for p in procs:
                ctx.outln(f"{p.pid:>7} {p.tty:<8} {ps_cputime(p.cpu_time_s(now), True):>8} {p.comm}")
        return 1 if missing else 0

    def _custom(self, ctx: Context, procs: list[Proc], fields: list[str], headers: list[str] | None,
                pct_mem: Callable[[Proc], float], now: float) -> None:
        for f in fields:
            if f not in PS_FIELDS:
                raise ctx.fail(f"error: unknown user-defined format specifier \"{f}\"\n\nUsage:\n ps [options]", 1)

        def psr(p: Proc) -> str:
            """The CPU the process last ran on: one of its allowed CPUs."""
            allowed = _cpu_list(affinity(ctx.cluster, ctx.host, p.pid, procs) or "0")
            return str(allowed[(p.pid * 7 + int(now)) % len(allowed)])

        def value(p: Proc, f: str) -> str:
            if f == "psr":
                return psr(p)
            if f in ("uid", "euid", "ruid"):
                return str(uid_of(p.user))
            etime = max(0, int(now - p.start_s))
            return {
                "pid": str(p.pid), "ppid": str(p.ppid), "user": p.user, "comm": p.comm, "args": p.args,
                "cmd": p.args, "%cpu": f"{p.cpu_pct:.1f}", "pcpu": f"{p.cpu_pct:.1f}", "%mem": f"{pct_mem(p):.1f}",
                "pmem": f"{pct_mem(p):.1f}", "rss": str(p.rss_kib), "vsz": str(p.vsz_kib), "stat": p.state,
                "etime": ps_etime(etime), "time": ps_cputime(p.cpu_time_s(now), True), "nlwp": str(p.threads),
                "tty": p.tty, "lstart": ctx.clock.at(p.start_s).strftime("%a %b %e %H:%M:%S %Y"),
                "start": _ps_start(ctx, p.start_s),
            }[f]

        table = [[value(p, f) for f in fields] for p in procs]
        widths = []
        for k, f in enumerate(fields):
            head = headers[k] if headers else ""
            widths.append(max([len(head), PS_WIDTHS.get(f, 0)] + [len(row[k]) for row in table]))
        rows = ([headers] if headers else []) + table
        for row in rows:
            cells = []
            for k, f in enumerate(fields):
                last = k == len(fields) - 1
                align = PS_FIELDS[f][1]
                if last and align == "<":
                    cells.append(row[k])
                else:
                    cells.append(f"{row[k]:{align}{widths[k]}}")
            ctx.outln(" ".join(cells).rstrip() if fields[-1] in ("args", "cmd", "comm") else " ".join(cells))


# -- taskset ---------------------------------------------------------------------------------------


def _cpu_list(cpus: str) -> list[int]:
    """``0-3,8`` -> [0, 1, 2, 3, 8]."""
    found: list[int] = []
    for part in cpus.split(","):
        lo, _, hi = part.partition("-")
        found += range(int(lo), int(hi or lo) + 1)
    return found


def _cpu_mask(cpus: str) -> str:
    return f"{sum(1 << cpu for cpu in _cpu_list(cpus)):x}"


class Taskset(RawCommand):
    name = "taskset"
    summary = "show a process's CPU affinity, or run a command on given CPUs"
    section = SECTION
    add_help_flag = False
    description = ("taskset -p PID shows the affinity mask, taskset -cp PID the CPU list; taskset -c LIST CMD\n"
                   "runs CMD on those CPUs.")

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        usage = ("Usage: taskset [options] [mask | cpu-list] [pid|cmd [args...]]\n\n"
                 "Show or change the CPU affinity of a process.")
        if not words or words[0] in ("-h", "--help"):
            if words:
                ctx.outln(usage)
                return 0
            raise ctx.fail(usage, 1)
        flags = ""
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag in ("--cpu-list",):
                flags += "c"
            elif flag in ("--pid",):
                flags += "p"
            elif flag in ("--all-tasks",):
                continue
            elif all(c in "cpa" for c in flag[1:]) and len(flag) > 1:
                flags += flag[1:]
            else:
                raise ctx.fail(f"taskset: invalid option -- '{flag.lstrip('-')[:1]}'\n{usage}", 1)
        if "p" in flags:
            if len(words) != 1 or not words[0].isdecimal():
                raise ctx.fail(usage, 1)
            pid = int(words[0])
            cpus = affinity(ctx.cluster, ctx.host, pid)
            if cpus is None:
                raise ctx.fail(f"taskset: failed to get pid {pid}'s affinity: No such process", 1)
            if "c" in flags:
                ctx.outln(f"pid {pid}'s current affinity list: {cpus}")
            else:
                ctx.outln(f"pid {pid}'s current affinity mask: {_cpu_mask(cpus)}")
            return 0
        if len(words) < 2:
            raise ctx.fail(usage, 1)
        result = ctx.run(words[1:])
        ctx.out(result.stdout)
        if result.stderr:
            ctx.err(result.stderr)
        return result.status


PGREP_USAGE = "\nUsage:\n pgrep [options] <pattern>\n\nFor more details see pgrep(1)."


class Pgrep(ParsedCommand):
    name = "pgrep"
    summary = "list the process IDs whose name (or, with -f, command line) matches a pattern"
    section = SECTION
    usage_status = 2
    notes = "Exit status 0 when a process matched, 1 when none did, 2 for bad usage (procps-ng)."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-f", "--full", action="store_true", help="match against the full command line")
        parser.add_argument("-l", "--list-name", action="store_true", help="list the process name as well")
        parser.add_argument("-a", "--list-full", action="store_true", help="list the full command line as well")
        parser.add_argument("-u", "--euid", metavar="USER", help="only processes of this user")
        parser.add_argument("-c", "--count", action="store_true", help="print the number of matches")
        parser.add_argument("-x", "--exact", action="store_true", help="the name must match exactly")
        parser.add_argument("-n", "--newest", action="store_true", help="select only the newest matching process")
        parser.add_argument("-o", "--oldest", action="store_true", help="select only the oldest matching process")
        parser.add_argument("pattern", metavar="PATTERN", nargs="?", help="extended regular expression")

    def usage_error(self, message: str) -> str:
        """procps-ng's wording: an unknown option, then a pointer to the help."""
        bad = message.split(":", 1)[-1].split()[0] if message.startswith("unrecognized arguments:") and \
            message.split(":", 1)[-1].split() else ""
        if bad.startswith("--"):
            message = f"unrecognized option '{bad}'"
        elif bad.startswith("-"):
            message = f"invalid option -- '{bad[1:2]}'"
        elif "required" in message:
            message = "no matching criteria specified"
        return f"pgrep: {message}\n{PGREP_USAGE}"

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:

        if args.newest and args.oldest:
            raise ctx.fail(PGREP_USAGE.lstrip("\n"), 2)
        if args.pattern is None and not (args.newest or args.oldest or args.euid):
            raise ctx.fail(self.usage_error("the following arguments are required: PATTERN"), 2)
        try:
            regex = re.compile(posix_regex(args.pattern or "", True))
        except (re.error, RegexError) as exc:
            raise ctx.fail(f"pgrep: {exc}", 2) from None
        found = []
        for proc in processes(ctx.cluster, ctx.host):
            subject = proc.args if args.full else proc.comm[:15]
            hit = regex.fullmatch(subject) if args.exact else regex.search(subject)
            if hit and (args.euid is None or proc.user == args.euid):
                found.append(proc)
        if found and (args.newest or args.oldest):
            # procps-ng: the latest (earliest) start time; a tie goes to the higher (lower) PID.
            pick = max if args.newest else min
            found = [pick(found, key=lambda p: (p.start_s, p.pid))]
        if args.count:
            ctx.outln(str(len(found)))
        for proc in [] if args.count else found:
            if args.list_full:
                ctx.outln(f"{proc.pid} {proc.args}")
            elif args.list_name:
                ctx.outln(f"{proc.pid} {proc.comm[:15]}")
            else:
                ctx.outln(str(proc.pid))
        return 0 if found else 1


def commands() -> list[Command]:
    return [Free(), Top(), Ps(), Taskset(), Pgrep()]
