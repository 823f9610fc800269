"""``salloc``: obtain a Slurm job allocation, then work inside it from the login node.

As on a real login node, ``salloc`` allocates the nodes and starts a shell on
the login node with the allocation's ``SLURM_*`` variables set; ``srun`` in that
shell runs inside the allocation, and ``exit`` ends the shell and relinquishes
the allocation. With a command (``salloc -N2 srun hostname``) it runs the
command instead of a shell and relinquishes when it ends. A request no node
can satisfy fails at once with Slurm's error; one that must wait queues, as
``salloc`` does, in simulated time.
"""

from __future__ import annotations

import argparse
import posixpath
from collections.abc import Generator
from typing import Any

from emulator.cluster.scheduler import Job, compress_hostlist
from emulator.commands.kit.command import Context, Outcome
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.allocation import Request, job_options, new_job, start, wait_for_nodes


class Salloc(sc.SlurmCommand):
    name = "salloc"
    summary = "obtain a Slurm job allocation and start a shell in it"
    notes = ("Without COMMAND, starts a shell on this host with SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NNODES... "
             "set; srun there runs in the allocation; 'exit' relinquishes it.")

    def configure(self, parser: Any) -> None:
        job_options(parser)
        parser.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND",
                            help="run this instead of a shell, then relinquish the allocation")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        req = Request(ctx, "salloc", args)
        name = args.job_name or (posixpath.basename(args.command[0]) if args.command else "interactive")
        job = new_job(ctx, req, name, "PENDING", args.command[0] if args.command else "/bin/bash")
        job.salloc = True
        chosen = req.pick(ctx.cluster)
        if chosen is None:
            return _wait(ctx, job, req, args)
        start(ctx.cluster, job, chosen)
        return _granted(ctx, job, args)


def _wait(ctx: Context, job: Job, req: Request, args: argparse.Namespace) -> Generator[float, None, int]:
    """Queue until nodes are free (Ctrl-C or the wait limit revokes the request)."""
    if req.note_unavailable(ctx.cluster, job):
        ctx.err("salloc: Required node not available (down, drained or reserved)\n")
    ctx.err(f"salloc: Pending job allocation {job.job_id}\n"
            f"salloc: job {job.job_id} queued and waiting for resources\n")
    nodes = yield from wait_for_nodes(ctx, job, req)
    return 1 if nodes is None else _granted(ctx, job, args)


def _granted(ctx: Context, job: Job, args: argparse.Namespace) -> int:
    """The job holds its nodes: say so, then start the shell or run the command."""
    limit = sc.limit_seconds(job.time_limit)
    if limit is not None:
        end = ctx.clock.elapsed + limit
        ctx.cluster.clock.schedule(end, lambda: _time_out(ctx, job, end))
    job.steps = [("extern", "RUNNING", "0:0")]
    ctx.err(f"salloc: Granted job allocation {job.job_id}\n"
            f"salloc: Nodes {compress_hostlist(job.nodes)} are ready for job\n")
    env = allocation_env(ctx, job, args)
    if not args.command:
        ctx.shell.start_shell(env, lambda: _relinquish(ctx, job))
        return 0
    result = ctx.run(list(args.command), env=env)
    ctx.out(result.stdout)
    ctx.err(result.stderr + _relinquish(ctx, job))
    return result.status


def allocation_env(ctx: Context, job: Job, args: argparse.Namespace) -> dict[str, str]:
    """The variables salloc sets for the shell or command it starts."""
    cluster = ctx.cluster
    count = len(job.nodes)
    hostlist = compress_hostlist(job.nodes)
    per_node = sc.cpus_per_node(cluster)
    env = {
        "SLURM_CLUSTER_NAME": cluster.slurm.cluster_name, "SLURM_JOB_ACCOUNT": job.account,
        "SLURM_JOB_CPUS_PER_NODE": f"{per_node}(x{count})" if count > 1 else str(per_node),
        "SLURM_JOB_ID": str(job.job_id), "SLURM_JOBID": str(job.job_id), "SLURM_JOB_NAME": job.name,
        "SLURM_JOB_NODELIST": hostlist, "SLURM_NODELIST": hostlist, "SLURM_JOB_NUM_NODES": str(count),
        "SLURM_NNODES": str(count), "SLURM_JOB_PARTITION": job.partition, "SLURM_JOB_QOS": job.qos,
        "SLURM_SUBMIT_DIR": ctx.cwd, "SLURM_SUBMIT_HOST": ctx.host.name,
        "SLURM_TASKS_PER_NODE": f"{job.ntasks_per_node}(x{count})" if count > 1 else str(job.ntasks_per_node),
    }
    if args.ntasks:
        env |= {"SLURM_NTASKS": str(args.ntasks), "SLURM_NPROCS": str(args.ntasks)}
    if args.gres:
        env["SLURM_TRES_PER_NODE"] = f"gres/{args.gres}"
    return env


def _relinquish(ctx: Context, job: Job) -> str:
    """The allocation ends with its shell or command; what salloc prints as it goes."""
    if job.state != "RUNNING":
        return ""
    sc.finish_job(ctx.cluster, job, 0, ctx.clock.elapsed)
    return f"salloc: Relinquishing job allocation {job.job_id}\n"


def _time_out(ctx: Context, job: Job, at: float) -> None:
    """The allocation reaches its time limit: slurmctld revokes it (state TIMEOUT) and salloc says so."""
    if job.state != "RUNNING":
        return
    sc.finish_job(ctx.cluster, job, 0, at)
    job.state = "TIMEOUT"
    ctx.shell.emit("err", f"salloc: Job {job.job_id} has exceeded its time limit and its allocation has been "
                          "revoked.\n")


def commands() -> list[Any]:
    return [Salloc()]
