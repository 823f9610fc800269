"""``squeue`` (Slurm 23.11): the jobs in the scheduling queue, through Slurm's format strings.

Pending jobs sort first within a partition, then by priority; without ``-t``
only live jobs show (pending, running, suspended, completing, configuring).
"""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, compress_hostlist
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.kit.units import slurm_duration
from emulator.commands.slurm import common as sc
from emulator.commands.slurm import json_out as slurm_json
from emulator.commands.slurm.options import comma_values, ctime_line, hostlist_names, long_format_items

#: squeue's formats without and with -l, and the column headers by format letter.
SQUEUE_DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
SQUEUE_LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
SQUEUE_HEADERS = {
    "i": "JOBID", "A": "JOBID", "j": "NAME", "u": "USER", "U": "UID", "t": "ST", "T": "STATE", "M": "TIME",
    "l": "TIME_LIMIT", "L": "TIME_LEFT", "D": "NODES", "N": "NODELIST", "R": "NODELIST(REASON)", "C": "CPUS",
    "P": "PARTITION", "b": "TRES_PER_NODE", "S": "START_TIME", "V": "SUBMIT_TIME", "e": "END_TIME",
    "a": "ACCOUNT", "q": "QOS", "Q": "PRIORITY", "Z": "WORK_DIR", "o": "COMMAND", "r": "REASON",
    "B": "EXEC_HOST", "p": "PRIORITY", "g": "GROUP",
}


#: ``squeue -O`` field names → format letters.
SQUEUE_LONG_NAMES = {
    "jobid": "i", "jobarrayid": "i", "name": "j", "username": "u", "userid": "U", "statecompact": "t",
    "state": "T", "timeused": "M", "timelimit": "l", "timeleft": "L", "numnodes": "D", "nodelist": "N",
    "reasonlist": "R", "reason": "r", "numcpus": "C", "partition": "P", "tres-per-node": "b",
    "starttime": "S", "submittime": "V", "endtime": "e", "account": "a", "qos": "q", "priority": "Q",
    "workdir": "Z", "command": "o", "batchhost": "B",
}


class Squeue(sc.SlurmCommand):
    name = "squeue"
    reads_only = True
    summary = "view information about jobs in the Slurm scheduling queue"
    notes = "Default format: %.18i %.9P %.8j %.8u %.2t %.10M %.6D %R. Pending jobs sort first."
    add_help_flag = False
    json_help = "the jobs"

    def configure(self, parser: Any) -> None:
        parser.add_argument("-u", "--user", action="append", metavar="USERS", help="only jobs of these users")
        parser.add_argument("--me", action="store_true", help="only my jobs")
        parser.add_argument("-j", "--jobs", action="append", metavar="JOBS", help="only these job ids")
        parser.add_argument("-p", "--partition", action="append", metavar="PARTITIONS", help="only these partitions")
        parser.add_argument("-t", "--states", action="append", metavar="STATES", help="only jobs in these states")
        parser.add_argument("-w", "--nodelist", action="append", metavar="NODES", help="only jobs on these nodes")
        parser.add_argument("-l", "--long", action="store_true", help="more detail (STATE, TIME_LIMIT)")
        parser.add_argument("-o", "--format", metavar="FORMAT", help="output format (%%i %%j %%T ...)")
        parser.add_argument("-O", "--Format", metavar="FIELDS", help="output fields by name (JobID,Name:30,State)")
        parser.add_argument("-h", "--noheader", action="store_true", help="do not print a header line")
        parser.add_argument("-a", "--all", action="store_true", help="show jobs in hidden partitions")
        parser.add_argument("-r", "--array", action="store_true", help="one job array element per line")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        users = set(comma_values(args.user))
        if args.me:
            users.add(ctx.user)
        for name in sorted(users):
            if name not in sc.UIDS:
                raise ctx.fail(f"squeue: error: Invalid user: {name}")
        ids: set[int] = set()
        for text in comma_values(args.jobs):
            if not text.isdecimal():
                raise ctx.fail(f"squeue: error: Invalid job id: {text}")
            ids.add(int(text))
        states = _job_states(ctx, comma_values(args.states))
        nodes = {n for expr in args.nodelist or [] for n in hostlist_names(ctx, "squeue", expr)}
        parts = set(comma_values(args.partition))
        jobs = [j for j in cluster.slurm.jobs if sc.job_visible(cluster, j)]
        if ids:
            jobs = [j for j in jobs if j.job_id in ids]
            if not jobs:
                raise ctx.fail("slurm_load_jobs error: Invalid job id specified")
        if states is None:
            if not ids:
                jobs = [j for j in jobs if j.state in ("PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING")]
        elif states:
            jobs = [j for j in jobs if j.state in states]
        if users:
            jobs = [j for j in jobs if j.user in users]
        if parts:
            jobs = [j for j in jobs if j.partition in parts]
        if nodes:
            jobs = [j for j in jobs if nodes & set(j.nodes)]
        order = {s: i for i, s in enumerate(sc.JOB_ORDER)}
        jobs.sort(key=lambda j: (j.partition, order.get(j.state, 99), -sc.priority(j), j.job_id))
        if args.json:
            ctx.outln(slurm_json.squeue(cluster, sorted(jobs, key=lambda j: j.job_id), ["squeue", "--json"],
                                        ctx.user))
            return 0
        items = long_format_items(ctx, "squeue", args.Format, SQUEUE_LONG_NAMES) if args.Format else \
            sc.parse_format(args.format or (SQUEUE_LONG if args.long else SQUEUE_DEFAULT))
        rows = [_job_values(cluster, j) for j in jobs]
        if args.long:
            ctx.outln(ctime_line(ctx))
        for line in sc.render_rows(items, SQUEUE_HEADERS, rows, not args.noheader, {}):
            ctx.outln(line)
        return 0


def _job_states(ctx: Context, names: list[str]) -> set[str] | None:
    if not names:
        return None
    states: set[str] = set()
    for name in names:
        upper = name.upper()
        if upper == "ALL":
            return set()
        match = [s for s, code in sc.JOB_CODES.items() if upper in (s, code)]
        if not match:
            raise ctx.fail(f"squeue: error: Invalid job state specified: {name}\n"
                           f"squeue: error: Valid job states include: {','.join(sc.JOB_ORDER)},COMPLETING")
        states.update(match)
    return states


def _job_values(cluster: Cluster, job: Job) -> dict[str, str]:
    running = job.state == "RUNNING"
    limit = sc.limit_seconds(job.time_limit)
    used = sc.run_time(cluster, job)
    nodelist = compress_hostlist(job.nodes) if job.nodes else ""
    end = job.end_s if job.end_s is not None else (
        job.start_s + limit if job.start_s is not None and limit is not None else None)
    return {
        "i": str(job.job_id), "A": str(job.job_id), "j": job.name, "u": job.user, "U": str(sc.UIDS.get(job.user, 0)),
        "g": job.user, "t": sc.JOB_CODES.get(job.state, job.state[:2]), "T": job.state, "M": slurm_duration(used),
        "l": job.time_limit, "L": slurm_duration(limit - used) if limit is not None and running else "INVALID",
        "D": str(job.num_nodes), "N": nodelist,
        "R": f"({job.reason})" if job.state == "PENDING" else (nodelist or f"({job.reason})"),
        "r": job.reason, "C": str(sc.job_cpus(cluster, job)), "P": job.partition,
        "b": f"gres/gpu:{job.gpus_per_node}" if job.gpus_per_node else "N/A",
        "S": sc.stamp(cluster, job.start_s, "N/A"), "V": sc.stamp(cluster, job.submit_s),
        "e": sc.stamp(cluster, end, "N/A"), "a": job.account, "q": job.qos, "Q": str(sc.priority(job)),
        "p": f"{sc.priority(job) / 4294967295:.8f}", "Z": job.workdir or f"/home/{job.user}",
        "o": job.command or job.name, "B": job.nodes[0] if job.nodes else "n/a",
    }


def commands() -> list[Command]:
    return [Squeue()]
