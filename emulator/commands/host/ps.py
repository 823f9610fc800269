"""``ps`` (procps-ng): BSD (``aux``), UNIX (``-ef``) and GNU (``--sort``) options, and the ``-o`` format fields.

The process table is :func:`emulator.cluster.processes.processes`: system
daemons, the services of the model, and on a node running the training job
its torchrun agent, the eight ranks (``pt_main_thread``) and their DataLoader
workers (``pt_data_worker``). Without options ps shows this shell's processes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from emulator.cluster.accounts import uid_of
from emulator.cluster.processes import Proc, affinity, memory, processes
from emulator.commands.host.cpulist import cpu_list
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag
from emulator.commands.kit.units import ps_cputime, ps_etime


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
    "euid": ("EUID", ">"), "ruid": ("RUID", ">"), "wchan": ("WCHAN", "<"),
}


#: procps' default column widths for -o fields (ps/output.c's format table: wchan is 6 wide, and its
#: value is cut to the column's width unless it is the last column; ``wchan:32`` widens it).
PS_WIDTHS = {"pid": 7, "ppid": 7, "user": 8, "comm": 15, "%cpu": 4, "pcpu": 4, "%mem": 4, "pmem": 4, "rss": 5,
             "vsz": 6, "stat": 4, "etime": 11, "time": 8, "nlwp": 4, "tty": 8, "psr": 3, "uid": 5, "euid": 5,
             "ruid": 5, "wchan": 6}
#: Fields whose value procps cuts to the column's width instead of widening the column.
PS_CUT = frozenset({"wchan"})


#: ps's UNIX and GNU options (BSD ones, ``aux``, are letters without a dash: a and x select all, u the
#: user-oriented format, o and p as below).
PS_FLAGS = (
    Flag("", "--help", "", "display help and exit"),
    Flag("-e", "", "", "select every process"),
    Flag("-A", "", "", "select every process"),
    Flag("-f", "", "", "full-format listing"),
    Flag("-F", "", "", "extra full format (as -f here)"),
    Flag("-o", "--format", "FORMAT", "user-defined format: pid,comm,... (a header after =)"),
    Flag("-O", "", "FORMAT", "user-defined format (as -o here)"),
    Flag("-p", "--pid", "PIDLIST", "select by process ID"),
    Flag("-u", "--user", "USERLIST", "select by effective user"),
    Flag("-U", "", "USERLIST", "select by real user"),
    Flag("-C", "", "CMDLIST", "select by command name"),
    Flag("-w", "", "", "wide output (accepted; lines are never cut)"),
    Flag("", "--sort", "[-]FIELD", "sort by %cpu, %mem, rss, pid, vsz or time"),
    Flag("", "--no-headers", "", "print no header line"),
    Flag("", "--no-heading", "", "print no header line"),
)
#: The GNU long options that take a value, and the UNIX option letters that do.
LONG_WITH_VALUE = frozenset(flag.long for flag in PS_FLAGS if flag.long and flag.value)
UNIX_WITH_VALUE = "".join(flag.short[1:] for flag in PS_FLAGS if flag.short and flag.value)


class Ps(RawCommand):
    name = "ps"
    summary = "report a snapshot of the current processes"
    section = "Host"
    flags = PS_FLAGS
    words = ("aux",)
    synopsis = "[options]"
    description = ("ps takes BSD (aux), UNIX (-ef) and GNU (--sort) options, as procps does. Without options it\n"
                   "shows this shell's processes. -o fields: pid, ppid, user, comm, args, cmd, %cpu, %mem, rss,\n"
                   "vsz, stat, etime, time, nlwp, tty, lstart, start, psr, uid, wchan; FIELD:WIDTH sets a width.\n"
                   "Selections (-p, -u, -C) add up, as procps' do.")
    notes = "Supported: ps aux, ps -ef, ps -u USER, ps -p PID[,PID] -o FIELD[,FIELD], --sort=[-]FIELD, --no-headers."

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        bsd, full, headers = False, False, True
        fields: list[str] = []
        titles: dict[str, str] = {}
        pids: set[int] | None = None
        users: set[str] | None = None
        cmds: set[str] | None = None
        widths: dict[str, int] = {}
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
                name, colon, width = name.partition(":")
                name = name.lower()
                if colon:
                    if not width.isdecimal() or not 0 < int(width) < 1000:
                        raise ctx.fail("error: width in width field is invalid\n\nUsage:\n ps [options]", 1)
                    widths[name] = int(width)
                names.append(name)
                if eq:
                    titles[name] = head
            return names

        def parse_pids(spec: str) -> set[int]:
            try:
                return {int(x) for x in spec.replace(" ", ",").split(",") if x}
            except ValueError:
                raise ctx.fail("error: process ID list syntax error\n\nUsage:\n ps [options]", 1) from None

        queue = deque(words)
        while queue:
            w = queue.popleft()
            if w == "--help":
                ctx.out("\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n"
                        "  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n")
                return 0
            if w.startswith("--"):
                name, eq, val = w.partition("=")
                if name in ("--no-headers", "--no-heading"):
                    headers = False
                    continue
                if name not in LONG_WITH_VALUE:
                    raise ctx.fail(error.format("unknown gnu long option"), 1)
                val = val if eq else (queue.popleft() if queue else "")
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
                if (unix and c in UNIX_WITH_VALUE) or (not unix and c in "op"):
                    val = chars[k + 1:] or (queue.popleft() if queue else "")
                    if c in "oO":
                        fields += format_list(val)
                    elif c == "p":
                        pids = parse_pids(val)
                    elif c == "C":
                        cmds = set(val.split(","))
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
        if pids is not None or users is not None or cmds is not None:
            procs = [p for p in procs if p.pid in (pids or ()) or p.user in (users or ()) or p.comm in (cmds or ())]
        if not all_procs and pids is None and users is None and cmds is None:
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
        missing = (pids is not None or cmds is not None) and not procs
        pct_mem = lambda p: 100.0 * p.rss_kib / mem.total  # noqa: E731
        if fields:
            heads = [titles.get(f, PS_FIELDS.get(f, ("", ""))[0]) for f in fields]
            self._custom(ctx, procs, fields, heads if headers and any(heads) else None, pct_mem, now, widths)
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
                pct_mem: Callable[[Proc], float], now: float, sizes: dict[str, int]) -> None:
        for f in fields:
            if f not in PS_FIELDS:
                raise ctx.fail(f"error: unknown user-defined format specifier \"{f}\"\n\nUsage:\n ps [options]", 1)

        def psr(p: Proc) -> str:
            """The CPU the process last ran on: one of its allowed CPUs."""
            allowed = cpu_list(affinity(ctx.cluster, ctx.host, p.pid, procs) or "0")
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
                "start": _ps_start(ctx, p.start_s), "wchan": p.wchan,
            }[f]

        table = [[value(p, f) for f in fields] for p in procs]
        last = len(fields) - 1
        for k, f in enumerate(fields):
            if f in PS_CUT and k < last:
                for row in table:
                    row[k] = row[k][:sizes.get(f, PS_WIDTHS[f])]
        widths = []
        for k, f in enumerate(fields):
            head = headers[k] if headers else ""
            widths.append(max([len(head), sizes.get(f, PS_WIDTHS.get(f, 0))] + [len(row[k]) for row in table]))
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
