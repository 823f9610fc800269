"""``sacct``: Slurm 23.11 accounting records of the jobs in the model.

Each job has its allocation line and its steps (``.batch``, ``.extern``,
``.0``). Without ``-j`` the window starts at midnight of the current day
(simulated) and only the caller's jobs show, as for a non-admin user.
``--format`` fields take an optional ``%width``; values too wide end in ``+``.
A requeued job shows its current run; ``--duplicates`` adds the earlier runs
(state REQUEUED).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, StepRun, compress_hostlist, expand_hostlist, job_steps
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.units import slurm_elapsed
from emulator.commands.slurm import common as sc
from emulator.commands.slurm import json_out as slurm_json

DEFAULT_FIELDS = "jobid,jobname,partition,account,alloccpus,state,exitcode"
BRIEF_FIELDS = "jobid,state,exitcode"


class Row:
    """One sacct line: a job allocation (``step`` None) or one of its steps."""

    def __init__(self, cluster: Cluster, job: Job, step: tuple[str, str, str] | None) -> None:
        self.cluster, self.job, self.step = cluster, job, step

    @property
    def nodes(self) -> list[str]:
        if self.step and self.step[0] == "batch":
            return self.job.nodes[:1]
        if self.ran is not None:
            return list(self.ran.nodes)
        return self.job.nodes

    @property
    def cpus(self) -> int:
        if not self.job.nodes:
            return 0
        return sc.cpus_per_node(self.cluster) * len(self.nodes)

    @property
    def state(self) -> str:
        if self.step:
            return self.step[1]
        if self.job.state == "CANCELLED" and self.job.cancelled_by is not None:
            return f"CANCELLED by {self.job.cancelled_by}"
        return self.job.state

    @property
    def ran(self) -> StepRun | None:
        """Where and when the line's step ran, where srun recorded it."""
        return self.job.step_runs.get(self.step[0]) if self.step else None

    @property
    def times(self) -> tuple[float | None, float | None]:
        """When the line's job, or its step where srun recorded one, started and ended."""
        return (self.ran.start_s, self.ran.end_s) if self.ran is not None else (self.job.start_s, self.job.end_s)

    @property
    def elapsed_s(self) -> float:
        if self.ran is not None:
            return self.ran.end_s - self.ran.start_s
        return sc.run_time(self.cluster, self.job)

    def tres(self) -> str:
        if not self.job.nodes:
            return ""
        n = len(self.nodes)
        gpus = f",gres/gpu={self.job.gpus_per_node * n}" if self.job.gpus_per_node else ""
        return f"billing={self.cpus},cpu={self.cpus}{gpus},mem={sc.mem_mb(self.cluster) * n}M,node={n}"


def _step_name(job: Job, step: str) -> str:
    if step in ("batch", "extern"):
        return step
    return job.step_names.get(step) or ("torchrun" if job.is_training else job.name)


def _job_id(r: Row) -> str:
    return str(r.job.job_id) + (f".{r.step[0]}" if r.step else "")


#: Field name (lower case) → (header, width, left-aligned, value).
FIELDS: dict[str, tuple[str, int, bool, Callable[[Row], str]]] = {
    "jobid": ("JobID", 12, True, _job_id),
    "jobidraw": ("JobIDRaw", 12, True, _job_id),
    "jobname": ("JobName", 10, False, lambda r: _step_name(r.job, r.step[0]) if r.step else r.job.name),
    "partition": ("Partition", 10, False, lambda r: "" if r.step else r.job.partition),
    "account": ("Account", 10, False, lambda r: r.job.account),
    "alloccpus": ("AllocCPUS", 10, False, lambda r: str(r.cpus)),
    "ncpus": ("NCPUS", 10, False, lambda r: str(r.cpus)),
    "state": ("State", 10, False, lambda r: r.state),
    "exitcode": ("ExitCode", 8, False, lambda r: r.step[2] if r.step else r.job.exit_code),
    "derivedexitcode": ("DerivedExitCode", 15, False, lambda r: "" if r.step else "0:0"),
    "elapsed": ("Elapsed", 10, False, lambda r: slurm_elapsed(r.elapsed_s)),
    "elapsedraw": ("ElapsedRaw", 10, False, lambda r: str(int(r.elapsed_s))),
    "cputime": ("CPUTime", 10, False, lambda r: slurm_elapsed(r.elapsed_s * r.cpus)),
    "start": ("Start", 19, False, lambda r: sc.stamp(r.cluster, r.times[0])),
    "end": ("End", 19, False, lambda r: sc.stamp(r.cluster, r.times[1])),
    "submit": ("Submit", 19, False, lambda r: sc.stamp(r.cluster, r.job.submit_s)),
    "eligible": ("Eligible", 19, False, lambda r: sc.stamp(r.cluster, r.job.submit_s)),
    "nodelist": ("NodeList", 15, False, lambda r: compress_hostlist(r.nodes) if r.nodes else "None assigned"),
    "failednode": ("FailedNode", 8, False, lambda r: "" if r.step else r.job.failed_node),
    "ntasks": ("NTasks", 8, False, lambda r: "" if not r.step or r.step[0] == "extern" else
               str(1 if r.step[0] == "batch" else r.ran.ntasks if r.ran is not None else
                   r.job.num_nodes * r.job.ntasks_per_node)),
    "restarts": ("Restarts", 8, False, lambda r: "" if r.step else str(r.job.restarts)),
    "reqmem": ("ReqMem", 10, False, lambda r: "" if r.step else f"{sc.mem_mb(r.cluster) * r.job.num_nodes}M"),
    "nnodes": ("NNodes", 8, False, lambda r: str(len(r.nodes) if r.job.nodes else r.job.num_nodes)),
    "user": ("User", 9, False, lambda r: "" if r.step else r.job.user),
    "uid": ("UID", 6, False, lambda r: "" if r.step else str(sc.UIDS.get(r.job.user, 0))),
    "group": ("Group", 9, False, lambda r: "" if r.step else r.job.user),
    "timelimit": ("Timelimit", 10, False, lambda r: "" if r.step else r.job.time_limit),
    "alloctres": ("AllocTRES", 10, False, lambda r: r.tres()),
    "reqtres": ("ReqTRES", 10, False, lambda r: "" if r.step else r.tres()),
    "qos": ("QOS", 10, False, lambda r: "" if r.step else r.job.qos),
    "cluster": ("Cluster", 10, False, lambda r: r.cluster.slurm.cluster_name),
    "workdir": ("WorkDir", 20, False, lambda r: "" if r.step else (r.job.workdir or f"/home/{r.job.user}")),
    "reason": ("Reason", 22, False, lambda r: "" if r.step else r.job.reason),
    "priority": ("Priority", 10, False, lambda r: "" if r.step else str(sc.priority(r.job))),
}

_UNITS = {"": 1, "s": 1, "second": 1, "seconds": 1, "minute": 60, "minutes": 60, "hour": 3600, "hours": 3600,
          "day": 86400, "days": 86400, "week": 604800, "weeks": 604800}


def parse_time(cluster: Cluster, text: str) -> float | None:
    """A Slurm time specification → offset from the clock's start (None if invalid)."""
    now = cluster.clock.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    at: datetime | None = None
    m = re.fullmatch(r"now(?:([+-])(\d+)([a-z]*))?", text)
    if m:
        sign, count, unit = m.groups()
        unit = unit or ""
        if unit not in _UNITS:
            return None
        delta = int(count or 0) * _UNITS[unit]
        at = now + timedelta(seconds=delta if sign == "+" else -delta)
    elif text in ("today", "midnight"):
        at = midnight
    elif text == "noon":
        at = midnight + timedelta(hours=12)
    else:
        for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d", "%m/%d/%y", "%m%d%y"):
            try:
                at = datetime.strptime(text, fmt).replace(tzinfo=UTC)
                break
            except ValueError:
                continue
        if at is None:
            m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text)
            if m:
                at = midnight + timedelta(hours=int(m.group(1)), minutes=int(m.group(2)), seconds=int(m.group(3) or 0))
    if at is None:
        return None
    return (at - cluster.clock.start).total_seconds()


class Sacct(sc.SlurmCommand):
    name = "sacct"
    summary = "display accounting data for Slurm jobs and job steps"
    notes = f"Default fields: {DEFAULT_FIELDS}. Field widths: --format=JobID%20,State."
    add_help_flag = False
    json_help = "the jobs"

    def configure(self, parser: Any) -> None:
        parser.add_argument("-j", "--jobs", action="append", metavar="JOBS", help="only these job ids")
        parser.add_argument("-u", "--user", action="append", metavar="USERS", help="only jobs of these users")
        parser.add_argument("-a", "--allusers", action="store_true", help="jobs of every user")
        parser.add_argument("-X", "--allocations", action="store_true", help="no job steps, allocations only")
        parser.add_argument("-o", "--format", action="append", metavar="FIELDS", help="fields to print")
        parser.add_argument("-b", "--brief", action="store_true", help="JobID, State and ExitCode only")
        parser.add_argument("-P", "--parsable2", action="store_true", help="'|'-separated output, no trailing '|'")
        parser.add_argument("-p", "--parsable", action="store_true", help="'|'-separated output with a trailing '|'")
        parser.add_argument("-n", "--noheader", action="store_true", help="no header lines")
        parser.add_argument("-S", "--starttime", metavar="TIME", help="jobs active after TIME")
        parser.add_argument("-E", "--endtime", metavar="TIME", help="jobs active before TIME")
        parser.add_argument("-s", "--state", action="append", metavar="STATES", help="only jobs in these states")
        parser.add_argument("-N", "--nodelist", metavar="NODES", help="only jobs that ran on these nodes")
        parser.add_argument("-D", "--duplicates", action="store_true",
                            help="also the earlier runs of requeued jobs (state REQUEUED)")
        parser.add_argument("-e", "--helpformat", action="store_true", help="list the fields --format accepts")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        if args.helpformat:
            names = [FIELDS[k][0] for k in sorted(FIELDS)]
            for i in range(0, len(names), 4):
                ctx.outln("".join(f"{n:<20}" for n in names[i:i + 4]).rstrip())
            return 0
        spec = ",".join(args.format or []).strip(", ") or (BRIEF_FIELDS if args.brief else DEFAULT_FIELDS)
        columns = _columns(ctx, spec)
        jobs = _select(ctx, args)
        if args.json:
            ordered = sorted(jobs, key=lambda j: (j.submit_s, j.job_id))
            ctx.outln(slurm_json.sacct(cluster, ordered, ["sacct", "--json"], ctx.user))
            return 0
        rows: list[Row] = []
        for job in sorted(jobs, key=lambda j: (j.submit_s, j.job_id)):
            for record in (r for r in _records(args, job) if _state_wanted(args, r)):
                rows.append(Row(cluster, record, None))
                if not args.allocations:
                    rows += [Row(cluster, record, step) for step in job_steps(record)]
        sep = "|" if args.parsable or args.parsable2 else None
        if not args.noheader:
            headers = [c[0] for c in columns]
            if sep:
                ctx.outln(sep.join(headers) + (sep if args.parsable else ""))
            else:
                ctx.outln(" ".join(_cell(h[:w], w, left) for h, w, left, _ in columns) + " ")
                ctx.outln(" ".join("-" * w for _, w, _, _ in columns) + " ")
        for row in rows:
            values = [get(row) for _, _, _, get in columns]
            if sep:
                ctx.outln(sep.join(values) + (sep if args.parsable else ""))
            else:
                ctx.outln(" ".join(_cell(v, w, left) for v, (_, w, left, _) in zip(values, columns)) + " ")
        return 0


def _records(args: argparse.Namespace, job: Job) -> list[Job]:
    """The job's records: its current run, after its requeued runs with ``--duplicates``."""
    return [*job.earlier_runs, job] if args.duplicates else [job]


def _state_wanted(args: argparse.Namespace, record: Job) -> bool:
    """Whether ``--state`` (names or codes: ``REQUEUED``, ``RQ``) lets the record through."""
    wanted = {s.upper() for a in args.state or [] for s in a.split(",") if s}
    return not wanted or record.state in wanted or sc.JOB_CODES.get(record.state) in wanted


def _cell(value: str, width: int, left: bool) -> str:
    if len(value) > width:
        value = value[:width - 1] + "+"
    return value.ljust(width) if left else value.rjust(width)


def _columns(ctx: Context, spec: str) -> list[tuple[str, int, bool, Callable[[Row], str]]]:
    columns = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        name, _, width = item.partition("%")
        field = FIELDS.get(name.lower())
        if field is None or (width and not width.lstrip("-").isdecimal()):
            raise ctx.fail(f'sacct: error: Invalid field requested: "{name}"')
        header, size, left, get = field
        if width:
            size, left = abs(int(width)), int(width) < 0 or left
        columns.append((header, size, left, get))
    return columns


def _select(ctx: Context, args: argparse.Namespace) -> list[Job]:
    cluster = ctx.cluster
    jobs = list(cluster.slurm.jobs)
    ids: set[int] = set()
    for item in (v for a in args.jobs or [] for v in a.split(",") if v):
        base = item.split(".")[0]
        if not base.isdecimal():
            raise ctx.fail(f"sacct: error: Invalid job id: {item}")
        ids.add(int(base))
    start = end = None
    if args.starttime:
        start = parse_time(cluster, args.starttime)
        if start is None:
            raise ctx.fail(f"sacct: error: Invalid time specification (pos=0): {args.starttime}")
    if args.endtime:
        end = parse_time(cluster, args.endtime)
        if end is None:
            raise ctx.fail(f"sacct: error: Invalid time specification (pos=0): {args.endtime}")
    if start is None and not ids and not args.state:
        start = parse_time(cluster, "today")
    if ids:
        jobs = [j for j in jobs if j.job_id in ids]
    users = {u for a in args.user or [] for u in a.split(",") if u}
    if not users and not args.allusers and not ids and ctx.user != "root":
        users = {ctx.user}
    if users:
        jobs = [j for j in jobs if j.user in users]
    if start is not None:
        jobs = [j for j in jobs if j.end_s is None or j.end_s >= start]
    if end is not None:
        jobs = [j for j in jobs if (j.start_s if j.start_s is not None else j.submit_s) <= end]
    if args.state:
        jobs = [j for j in jobs if any(_state_wanted(args, r) for r in _records(args, j))]
    if args.nodelist:
        try:
            nodes = set(expand_hostlist(args.nodelist))
        except ValueError:
            raise ctx.fail(f"sacct: error: Invalid node list: {args.nodelist}") from None
        jobs = [j for j in jobs if nodes & set(j.nodes)]
    return jobs


def commands() -> list[Any]:
    return [Sacct()]
