"""``taskset`` (util-linux): a process's CPU affinity as a mask or a list, or a command run on given CPUs."""

from __future__ import annotations

from emulator.cluster.processes import affinity
from emulator.commands.host.cpulist import cpu_mask
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

#: taskset's options; -c, -p and -a may be written together (``-cp``).
TASKSET_FLAGS = (
    Flag("-h", "--help", "", "display this help"),
    Flag("-c", "--cpu-list", "", "show or take the affinity as a list of CPUs, not a mask"),
    Flag("-p", "--pid", "", "operate on an existing PID"),
    Flag("-a", "--all-tasks", "", "operate on all the tasks (threads) of the PID"),
)
#: Each long option's letter, and the letters that may be clustered (help is only ever a first word).
LETTER_OF = {flag.long: flag.short[1:] for flag in TASKSET_FLAGS if flag.long != "--help"}
LETTERS = "".join(LETTER_OF.values())


class Taskset(RawCommand):
    name = "taskset"
    summary = "show a process's CPU affinity, or run a command on given CPUs"
    section = "Host"
    flags = TASKSET_FLAGS
    synopsis = "[options] [mask | cpu-list] [pid|cmd [args...]]"
    description = ("taskset -p PID shows the affinity mask, taskset -cp PID the CPU list; taskset -c LIST CMD\n"
                   "runs CMD on those CPUs.")

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        usage = f"Usage: taskset {self.synopsis}\n\nShow or change the CPU affinity of a process."
        if not words or words[0] in ("-h", "--help"):
            if words:
                ctx.outln(usage)
                return 0
            raise ctx.fail(usage, 1)
        flags = ""
        at = 0
        while at < len(words) and words[at].startswith("-"):
            flag = words[at]
            at += 1
            if flag in LETTER_OF:
                flags += LETTER_OF[flag]
            elif all(c in LETTERS for c in flag[1:]) and len(flag) > 1:
                flags += flag[1:]
            else:
                raise ctx.fail(f"taskset: invalid option -- '{flag.lstrip('-')[:1]}'\n{usage}", 1)
        words = words[at:]
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
                ctx.outln(f"pid {pid}'s current affinity mask: {cpu_mask(cpus)}")
            return 0
        if len(words) < 2:
            raise ctx.fail(usage, 1)
        result = ctx.run(words[1:])
        ctx.out(result.stdout)
        if result.stderr:
            ctx.err(result.stderr)
        return result.status
