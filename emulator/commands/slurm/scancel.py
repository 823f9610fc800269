"""``scancel``: cancel jobs by id, or every live job matching a user, name, state or partition."""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cluster.scheduler import Job, job_ended, release_nodes
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.slurm import common as sc


class Scancel(sc.SlurmCommand):
    name = "scancel"
    summary = "signal or cancel Slurm jobs"

    def configure(self, parser: Any) -> None:
        parser.add_argument("-u", "--user", metavar="USER", help="cancel this user's jobs")
        parser.add_argument("-n", "--name", metavar="NAME", help="cancel jobs with this name")
        parser.add_argument("-t", "--state", metavar="STATE", help="cancel jobs in this state")
        parser.add_argument("-p", "--partition", metavar="PARTITION", help="cancel jobs in this partition")
        parser.add_argument("--me", action="store_true", help="cancel my jobs")
        parser.add_argument("-s", "--signal", metavar="SIGNAL", help="signal to send (jobs are cancelled)")
        parser.add_argument("jobs", nargs="*", metavar="JOBID", help="job ids")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        cluster = ctx.cluster
        me = ctx.user
        status = 0
        targets: list[Job] = []
        for text in args.jobs:
            base = text.split("_")[0].split(".")[0]
            job = cluster.slurm.job(int(base)) if base.isdecimal() and len(base) <= 18 else None
            if not base.isdecimal():
                raise ctx.fail(f"scancel: error: Invalid job id {text}")
            if job is None or not sc.job_visible(cluster, job):
                ctx.err(f"scancel: error: Kill job error on job id {text}: Invalid job id specified\n")
                status = 1
                continue
            targets.append(job)
        if not args.jobs:
            if not (args.user or args.name or args.state or args.partition or args.me):
                raise ctx.fail("scancel: error: No job identification provided")
            for job in cluster.slurm.jobs:
                if job.state not in ("PENDING", "RUNNING"):
                    continue
                if (args.user and job.user != args.user) or (args.me and job.user != me) \
                        or (args.name and job.name != args.name) or (args.partition and job.partition != args.partition):
                    continue
                if args.state and args.state.upper() not in (job.state, sc.JOB_CODES.get(job.state)):
                    continue
                targets.append(job)
        for job in targets:
            if job.user != me and not sc.operator(me):
                ctx.err(f"scancel: error: Kill job error on job id {job.job_id}: Access/permission denied\n")
                status = 1
                continue
            if job.state not in ("PENDING", "RUNNING"):
                ctx.err(f"scancel: error: Kill job error on job id {job.job_id}: "
                        "Job/step already completing or completed\n")
                status = 1
                continue
            was_running = job.state == "RUNNING"
            job.state, job.end_s, job.reason = "CANCELLED", ctx.clock.elapsed, "None"
            job.cancelled_by = sc.UIDS.get(me, 1000)
            job_ended(cluster.slurm, job)
            if was_running:
                job.exit_code = "0:15"
                release_nodes(cluster.slurm, job.nodes)
        return status


def commands() -> list[Command]:
    return [Scancel()]
