"""What the Slurm client tools share: format strings, times, node states, users.

``sinfo`` and ``squeue`` take ``-o`` format strings of ``%[.][width]X`` fields
(``.`` right-justifies; a width truncates longer values); this module parses
them once and renders rows. Times are offsets from the simulated clock's start
rendered as Slurm does; node states combine the scheduler's state with whether
the host's OS still answers (the ``*`` suffix).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from emulator.cluster.accounts import UIDS
from emulator.cluster.catalog import VERSIONS
from emulator.cluster.model import Cluster, Node
from emulator.cluster.processes import memory
from emulator.cluster.scheduler import Job, job_ended
from emulator.commands.kit.command import ParsedCommand
from emulator.commands.kit.spec import ArgumentParser, HelpRequested
from emulator.commands.kit.units import slurm_duration, slurm_elapsed

#: Job state → (short code for squeue %t, long name).
JOB_CODES = {
    "PENDING": "PD", "RUNNING": "R", "SUSPENDED": "S", "COMPLETING": "CG", "COMPLETED": "CD",
    "CONFIGURING": "CF", "CANCELLED": "CA", "FAILED": "F", "TIMEOUT": "TO", "PREEMPTED": "PR",
    "NODE_FAIL": "NF", "BOOT_FAIL": "BF", "DEADLINE": "DL", "OUT_OF_MEMORY": "OOM", "REQUEUED": "RQ",
}
#: Job states in Slurm's enum order (squeue sorts by it).
JOB_ORDER = ("PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
             "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY")
#: Seconds slurmctld keeps a finished job in memory (MinJobAge).
MIN_JOB_AGE_S = 300.0

#: Base node state → (short name, long name, Slurm's numeric state with flags).
_NODE_STATES = {
    "down": ("down", "DOWN", 0x001),
    "idle": ("idle", "IDLE", 0x002),
    "alloc": ("alloc", "ALLOCATED", 0x003),
    "mix": ("mix", "MIXED", 0x005),
    "drain": ("drain", "DRAINED", 0x202),
    "drng": ("drng", "DRAINING", 0x203),
}
_NO_RESPOND = 0x800


#: slurm.conf SlurmUser: the account slurmctld runs as. It and root are Slurm's administrators.
SLURM_USER = "slurm"


def operator(user: str) -> bool:
    """Whether ``user`` may run Slurm's operator commands (node updates, reboots, other users' jobs).

    slurmctld's validate_super_user() and validate_operator() admit root and SlurmUser (and accounts
    given an AdminLevel with sacctmgr, which this cluster does not configure).
    """
    return user in ("root", SLURM_USER)


def uid_label(name: str) -> str:
    """``alice(1000)`` as scontrol prints a user or group."""
    return f"{name}({UIDS.get(name, 1000)})"


# -- time ---------------------------------------------------------------------------


def limit_seconds(limit: str) -> int | None:
    """``2-00:00:00`` / ``30:00`` / ``infinite`` → seconds (None for infinite)."""
    if limit in ("infinite", "UNLIMITED"):
        return None
    days = 0
    if "-" in limit:
        head, limit = limit.split("-", 1)
        days = int(head)
    parts = [int(p) for p in limit.split(":")]
    parts = parts + [0] * (3 - len(parts)) if days else [0] * (3 - len(parts)) + parts
    return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def parse_limit(text: str) -> str | None:
    """A ``--time`` value (``minutes``, ``MM:SS``, ``H:MM:SS``, ``D-H[:MM[:SS]]``) → canonical form."""
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text)
    if not m:
        return None
    days, a, b, c = m.groups()
    if days is not None:
        secs = int(days) * 86400 + int(a) * 3600 + int(b or 0) * 60 + int(c or 0)
    elif c is not None:
        secs = int(a) * 3600 + int(b) * 60 + int(c)
    elif b is not None:
        secs = int(a) * 60 + int(b)
    else:
        secs = int(a) * 60
    return slurm_duration(secs) if secs < 86400 else slurm_elapsed(secs)


def stamp(cluster: Cluster, offset: float | None, none: str = "Unknown") -> str:
    """``2026-03-11T08:12:31`` for an offset from the clock's start."""
    if offset is None:
        return none
    return cluster.clock.at(offset).strftime("%Y-%m-%dT%H:%M:%S")


# -- node states ---------------------------------------------------------------------


@dataclass(frozen=True)
class NodeState:
    short: str
    long: str
    code: int
    responding: bool
    #: A pending ``scontrol reboot``: ``requested`` (flag REBOOT_REQUESTED) or ``issued`` (REBOOT_ISSUED).
    reboot: str = ""
    #: The DRAIN flag on a node whose base state does not show it (an ``ASAP`` reboot in progress).
    drain: bool = False

    @property
    def _booting(self) -> bool:
        """Slurm shows a reboot as the state itself (``boot``), except on a node still running jobs."""
        return bool(self.reboot) and self.short not in ("alloc", "mix", "drng")

    @property
    def _mark(self) -> str:
        return "^" if self.reboot == "issued" else "@"

    @property
    def short_name(self) -> str:
        if self._booting:
            return "boot^" if self.reboot == "issued" else "boot" + ("" if self.responding else "*")
        if self.reboot:
            return self.short + self._mark
        return self.short + ("" if self.responding else "*")

    @property
    def long_name(self) -> str:
        if self._booting:
            return "REBOOT^" if self.reboot == "issued" else "REBOOT" + ("" if self.responding else "*")
        if self.reboot:
            return self.long + self._mark
        return self.long + ("" if self.responding else "*")

    @property
    def scontrol(self) -> str:
        """``IDLE+DRAIN``, ``DOWN+DRAIN+REBOOT_ISSUED+NOT_RESPONDING`` as ``scontrol show node`` prints."""
        base = {"DRAINED": "IDLE+DRAIN", "DRAINING": "ALLOCATED+DRAIN"}.get(self.long, self.long)
        if self.drain and "+DRAIN" not in base:
            base += "+DRAIN"
        if self.reboot:
            base += "+REBOOT_ISSUED" if self.reboot == "issued" else "+REBOOT_REQUESTED"
        return base + ("" if self.responding else "+NOT_RESPONDING")

    @property
    def sort_key(self) -> int:
        return self.code | (0 if self.responding else _NO_RESPOND)


def node_state(cluster: Cluster, name: str) -> NodeState:
    base = cluster.slurm.node_state.get(name, "idle")
    short, long, code = _NODE_STATES.get(base, (base, base.upper(), 0))
    node = cluster.nodes.get(name)
    responding = node is None or node.health.os_up
    pending = cluster.slurm.reboots.get(name)
    if pending is None:
        return NodeState(short, long, code, responding)
    if pending.issued:  # slurmctld expects the silence of a rebooting node until ResumeTimeout
        return NodeState(short, long, code, True, "issued", pending.drain)
    return NodeState(short, long, code, responding, "requested", pending.drain)


def busy(state: NodeState) -> bool:
    """Whether a job holds the node."""
    return state.short in ("alloc", "mix", "drng")


def cpu_load(node: Node, state: NodeState) -> float | None:
    """The node's one-minute load as slurmd reports it; None when slurmd does not answer."""
    if not state.responding:
        return None
    return round((58.0 if busy(state) else 0.0) + (node.index % 7) * 0.13, 2)


def cpu_load_text(node: Node, state: NodeState) -> str:
    """CPULoad as sinfo (%O) and scontrol print it: two decimals, or N/A."""
    load = cpu_load(node, state)
    return "N/A" if load is None else f"{load:.2f}"


def free_mem_mb(cluster: Cluster, node: Node, state: NodeState) -> int | None:
    """FreeMem in MB (what ``free -m`` calls free, MemFree in /proc/meminfo); None when slurmd does not answer.

    slurmd's get_free_mem() (get_mach_stat.c) reports sysinfo()'s freeram, in MB; an operator sees
    the same figure as free -m's "free" column (OleHolmNielsen/Slurm_tools#25 compares the two).
    """
    return memory(cluster, node).free // 1024 if state.responding else None


def state_matches(state: NodeState, wanted: set[str]) -> bool:
    """Whether a node state matches ``-t`` names or their prefixes (``idle``, ``down``, ``drain``...)."""
    names = {state.short, state.long.lower()}
    if state.short in ("drain", "drng"):
        names |= {"drain", "drained" if state.short == "drain" else "draining"}
    if not state.responding:
        names |= {"no_respond"}
    if state.reboot:
        names |= {"reboot", "boot"}
    return any(name.startswith(w) for name in names for w in wanted)


# -- jobs -------------------------------------------------------------------------------


def job_visible(cluster: Cluster, job: Job) -> bool:
    """Whether slurmctld still holds the job (running, pending, or ended within MinJobAge)."""
    if job.state in ("PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING"):
        return True
    return job.end_s is not None and cluster.clock.elapsed - job.end_s <= MIN_JOB_AGE_S


def run_time(cluster: Cluster, job: Job) -> float:
    if job.start_s is None:
        return 0.0
    end = job.end_s if job.end_s is not None else cluster.clock.elapsed
    return max(0.0, end - job.start_s)


def priority(job: Job) -> int:
    """A multifactor-style priority: older submissions rank higher."""
    return 4_294_901_760 - int(job.submit_s + 10**6) % 65_536 - (job.job_id % 97)


def cpus_per_node(cluster: Cluster) -> int:
    nodes = cluster.compute_nodes
    return nodes[0].cpu.count if nodes else 0


def job_cpus(cluster: Cluster, job: Job) -> int:
    return cpus_per_node(cluster) * job.num_nodes


def mem_mb(cluster: Cluster) -> int:
    """RealMemory of a compute node in MB, as slurm.conf declares it."""
    nodes = cluster.compute_nodes
    return nodes[0].memory_kib // 1024 if nodes else 0


# -- format strings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    letter: str
    width: int | None
    right: bool
    dynamic: bool = False   # '#': width from the widest value


#: ``%[.][#][width]X``; ``#`` (this emulator's spelling of sinfo's "compute size later") sizes
#: the column to its widest value.
FORMAT = re.compile(r"%(\.)?(#)?(\d+)?([A-Za-z])")


def parse_format(spec: str) -> list[Field | str]:
    """``%#P %.5a`` → fields and literal text, in order."""
    items: list[Field | str] = []
    pos = 0
    for m in FORMAT.finditer(spec):
        if m.start() > pos:
            items.append(spec[pos:m.start()])
        dot, hash_, width, letter = m.groups()
        items.append(Field(letter, int(width) if width else None, bool(dot), bool(hash_)))
        pos = m.end()
    if pos < len(spec):
        items.append(spec[pos:])
    return items


def parse_long_format(spec: str, names: dict[str, str]) -> list[Field | str] | str:
    """``-O jobid,name:30,state:.10`` → fields (20 wide unless sized), or the unknown name."""
    items: list[Field | str] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        name, _, size = part.partition(":")
        letter = names.get(name.lower())
        if letter is None or (size and not size.lstrip(".").isdecimal()):
            return name
        items.append(Field(letter, int(size.lstrip(".")) if size.lstrip(".") else 20, size.startswith(".")))
    return items


def cell(value: str, width: int | None, right: bool) -> str:
    if width is None:
        return value
    value = value[:width]
    return value.rjust(width) if right else value.ljust(width)


def render_rows(items: list[Field | str], headers: dict[str, str], rows: list[dict[str, str]],
                header: bool, dynamic_min: dict[str, int]) -> list[str]:
    """Lines for ``rows`` (letter → value) under a parsed format, header first."""
    widths: dict[int, int | None] = {}
    for i, item in enumerate(items):
        if isinstance(item, Field):
            if item.dynamic:
                values = [len(r.get(item.letter, "")) for r in rows]
                widths[i] = max(values + [dynamic_min.get(item.letter, 0)])
            else:
                widths[i] = item.width
    lines = []
    table = ([{k: headers.get(k, "") for k in headers}] if header else []) + rows
    for row in table:
        parts = []
        for i, item in enumerate(items):
            if isinstance(item, str):
                parts.append(item)
            else:
                parts.append(cell(row.get(item.letter, ""), widths[i], item.right))
        lines.append("".join(parts))
    return lines


def finish_job(cluster: Cluster, job: Job, status: int, at: float | None = None) -> None:
    """The job ends: COMPLETED or FAILED with the exit code, its nodes return to idle."""
    if job.state != "RUNNING":
        return
    job.state = "COMPLETED" if status == 0 else "FAILED"
    job.exit_code = f"{status}:0"
    job.end_s = cluster.clock.elapsed + 1.0 if at is None else at
    job_ended(cluster.slurm, job)
    for n in job.nodes:
        state = cluster.slurm.node_state.get(n)
        if state == "alloc" and not any(o.state == "RUNNING" and n in o.nodes for o in cluster.slurm.jobs):
            cluster.slurm.node_state[n] = "idle"
        elif state == "drng":
            cluster.slurm.node_state[n] = "drain"


# -- the command base ---------------------------------------------------------------------


class _Version(argparse.Action):
    """``-V``: print the Slurm version and stop, as every Slurm client does."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        raise HelpRequested(f"slurm {VERSIONS.slurm}\n")


class SlurmCommand(ParsedCommand):
    """A Slurm client: getopt-style errors, status 1, ``-V`` prints the version.

    The flags every client shares are declared here, after the tool's own:
    ``--json`` where ``json_help`` names what it prints, ``-V/--version``, and
    ``--help`` alone where ``-h`` means something else (``sinfo -h``: no header).
    """

    section = "Slurm"
    usage_status = 1
    #: What ``--json`` prints (``the jobs``); empty for a client without ``--json``.
    json_help = ""

    def parser(self) -> ArgumentParser:
        """The spec, with getopt_long's matching of unique long-option prefixes (``--state=`` for ``--states``)."""
        if self._parser is None:
            parser = ArgumentParser(self, allow_abbrev=True)
            self.configure(parser)
            if self.json_help:
                parser.add_argument("--json", action="store_true",
                                    help=f"print {self.json_help} as JSON (data_parser v0.0.40)")
            parser.add_argument("-V", "--version", action=_Version, help="print the Slurm version")
            if not self.add_help_flag:
                parser.add_argument("--help", action="help", help="show this help")
            # The usage line lists the options before the tool's operands, as before.
            parser._actions.sort(key=lambda action: not action.option_strings)
            self._parser = parser
        return self._parser

    def usage_error(self, message: str) -> str:
        m = re.match(r"unrecognized arguments: (\S+)", message)
        if m:
            arg = m.group(1)
            text = f"unrecognized option '{arg}'" if arg.startswith("--") else (
                f"invalid option -- '{arg[1:2]}'" if arg.startswith("-") else f"unrecognized argument '{arg}'")
        else:
            m = re.match(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
            text = f"option requires an argument -- '{m.group(1).lstrip('-')}'" if m else message
        return f"{self.name}: {text}\nTry \"{self.name} --help\" for more information"
