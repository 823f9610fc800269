"""``srun``: run a parallel job step on cluster nodes.

``srun`` allocates idle, responding nodes of a partition (or runs inside an
existing allocation with ``--jobid`` or ``$SLURM_JOB_ID``) and runs its
command once per task through ``ctx.run`` on the task's node, with the
``SLURM_*`` variables a task sees. When no nodes are free it queues and waits
in simulated time, as an interactive ``srun`` does. ``srun --pty bash`` opens
a shell on the job's first node.
"""

from __future__ import annotations

import argparse
import posixpath
import re
from collections.abc import Generator
from typing import Any

from emulator.cluster.scheduler import Job, StepRun, add_step, expand_hostlist
from emulator.commands.kit.command import Command, Context, Outcome, Result
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.allocation import (
    MAX_TASKS,
    Request,
    job_options,
    new_job,
    start,
    task_env,
    wait_for_nodes,
)

#: Programs that ``srun --pty`` turns into an interactive login on the node.
SHELLS = ("bash", "sh", "zsh", "-bash")
#: Variables each host's shell sets for itself rather than inheriting from srun.
HOST_OWN = frozenset({"HOSTNAME", "PWD", "OLDPWD", "SHLVL"})


def _layout(nodes: list[str], ntasks: int) -> list[tuple[int, int, int]]:
    """Block distribution: (rank, node index, local id) for each task."""
    per, extra = divmod(ntasks, len(nodes))
    tasks, rank = [], 0
    for i in range(len(nodes)):
        for local in range(per + (1 if i < extra else 0)):
            tasks.append((rank, i, local))
            rank += 1
    return tasks


class Srun(sc.SlurmCommand):
    name = "srun"
    streams = True
    summary = "run a parallel job on cluster nodes managed by Slurm"
    notes = ("Runs COMMAND once per task on the allocated nodes. Without an allocation it allocates idle "
             "nodes; if none are free it prints 'queued and waiting for resources' and waits (Ctrl-C stops it).")

    def configure(self, parser: Any) -> None:
        job_options(parser)
        parser.add_argument("-l", "--label", action="store_true", help="prefix each output line with its task id")
        parser.add_argument("--jobid", metavar="ID", help="run inside this existing allocation")
        parser.add_argument("--overlap", action="store_true", help="share the allocation's resources with its other "
                                                                   "steps (a probe beside a running job step)")
        parser.add_argument("--pty", action="store_true", help="pseudo-terminal for task 0")
        parser.add_argument("--mpi", metavar="TYPE", help="MPI plugin (pmix, pmi2, none)")
        parser.add_argument("-u", "--unbuffered", action="store_true", help="do not buffer output")
        parser.add_argument("-K", "--kill-on-bad-exit", nargs="?", const="1", metavar="0|1",
                            help="end the step when a task fails")
        parser.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND", help="program and arguments")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if not args.command:
            raise ctx.fail("srun: fatal: No command given to execute.")
        cluster = ctx.cluster
        jobid = args.jobid or ctx.env.get("SLURM_JOB_ID")
        if jobid:
            job = cluster.slurm.job(int(jobid)) if jobid.isdecimal() else None
            if job is None or job.state != "RUNNING":
                raise ctx.fail(f"srun: error: Unable to confirm allocation for job {jobid}: Invalid job id specified\n"
                               f"srun: Check SLURM_JOB_ID environment variable. Expired or invalid job {jobid}")
            if job.user != ctx.user:
                raise ctx.fail(f"srun: error: Unable to confirm allocation for job {jobid}: "
                               "Access/permission denied")
            nodes = job.nodes
            if args.pty and posixpath.basename(args.command[0]) in SHELLS:  # a shell inside salloc
                return _shell(ctx, job, posixpath.basename(args.command[0]))
            if args.nodelist:
                nodes = [n for n in _expand(ctx, args.nodelist) if n in job.nodes]
                if not nodes:  # none of the named nodes is in the allocation
                    raise ctx.fail(f"srun: error: Unable to create step for job {job.job_id}: "
                                   "Requested node configuration is not available")
            count = int(args.nodes) if args.nodes and str(args.nodes).isdecimal() else len(nodes)
            nodes = nodes[:max(1, count)]
            ntasks = args.ntasks or len(nodes) * (args.ntasks_per_node or 1)
            inherited = ctx.env.get("SLURM_NTASKS", "")
            if not (args.ntasks or args.ntasks_per_node or args.nodes or args.nodelist or args.jobid) \
                    and inherited.isdecimal():
                ntasks = int(inherited)  # salloc -n: the allocation's task count is srun's default
            began = cluster.clock.elapsed
            status = _run_tasks(ctx, job, nodes, min(ntasks, MAX_TASKS), args)
            add_step(job, posixpath.basename(args.command[0]), "COMPLETED" if status == 0 else "FAILED",
                     f"{status}:0", StepRun(tuple(nodes), min(ntasks, MAX_TASKS), began, cluster.clock.elapsed))
            return status
        req = Request(ctx, "srun", args)
        name = args.job_name or posixpath.basename(args.command[0])
        chosen = req.pick(cluster)
        if chosen is not None:
            job = new_job(ctx, req, name, "PENDING", args.command[0])
            start(cluster, job, chosen)
            if args.pty and posixpath.basename(args.command[0]) in SHELLS:
                return _shell(ctx, job, posixpath.basename(args.command[0]))
            return _interactive(ctx, job, req, args)
        job = new_job(ctx, req, name, "PENDING", args.command[0])
        req.note_unavailable(cluster, job)
        return _wait_then_run(ctx, job, req, args)


def _shell(ctx: Context, job: Job, program: str) -> int:
    """``srun --pty bash``: a shell on the job's first node, as one more step of the job.

    Its ``exit`` ends the step; a job srun made for the shell alone ends with it.
    """
    cluster = ctx.cluster
    alone = not job.steps
    if alone:
        job.interactive = True
        job.steps = [("extern", "RUNNING", "0:0")]
    number = add_step(job, program, "RUNNING", "0:0")
    env = {k: v for k, v in task_env(cluster, job, job.nodes, 1, 0, 0, 0).items() if k not in HOST_OWN}

    def leave() -> str:
        job.steps = [(name, "COMPLETED", code) if name == number and state == "RUNNING" else (name, state, code)
                     for name, state, code in job.steps]
        if alone:
            sc.finish_job(cluster, job, 0, ctx.clock.elapsed)
        return ""

    ctx.shell.start_shell(env, leave, cluster.nodes[job.nodes[0]])
    return 0


def _expand(ctx: Context, expr: str) -> list[str]:
    try:
        return expand_hostlist(expr)
    except ValueError:
        raise ctx.fail(f"srun: error: Invalid node name specified: {expr}") from None


def _interactive(ctx: Context, job: Job, req: Request, args: argparse.Namespace) -> int:
    status = _run_tasks(ctx, job, job.nodes, req.ntasks, args)
    job.steps = [("extern", "COMPLETED", "0:0")]
    add_step(job, posixpath.basename(args.command[0]), "COMPLETED" if status == 0 else "FAILED", f"{status}:0")
    sc.finish_job(ctx.cluster, job, status)
    return status


def _wait_then_run(ctx: Context, job: Job, req: Request, args: argparse.Namespace) -> Generator[float, None, int]:
    ctx.err(f"srun: job {job.job_id} queued and waiting for resources\n")
    nodes = yield from wait_for_nodes(ctx, job, req)
    return 1 if nodes is None else _interactive(ctx, job, req, args)


def _run_tasks(ctx: Context, job: Job, nodes: list[str], ntasks: int, args: argparse.Namespace) -> int:
    cluster = ctx.cluster
    layout = _layout(nodes, ntasks)
    width = len(str(ntasks - 1))
    worst = 0
    for rank, node_index, local in layout:
        host = cluster.nodes[nodes[node_index]]
        # --export=ALL: the task gets srun's environment, including ``VAR=value srun ...`` assignments.
        env = {k: v for k, v in ctx.env.items() if k not in HOST_OWN} | task_env(cluster, job, nodes, ntasks, rank,
                                                                                  node_index, local)
        result = ctx.run(list(args.command), host=host, env=env)
        missing = re.fullmatch(r"bash: (\S+): command not found\n", result.stderr)
        if result.status == 127 and missing:  # slurmstepd cannot exec the program
            result = Result(result.stdout, f"slurmstepd: error: execve(): {missing.group(1)}: "
                                           "No such file or directory\n", 2)
        for stream, text in (("out", result.stdout), ("err", result.stderr)):
            if not text:
                continue
            if args.label:
                text = "".join(f"{rank:>{width}}: {line}\n" for line in text.splitlines())
            (ctx.out if stream == "out" else ctx.err)(text)
        if result.status:
            ctx.err(f"srun: error: {host.name}: task {rank}: Exited with exit code {result.status}\n")
            worst = max(worst, result.status)
    return worst


def commands() -> list[Command]:
    return [Srun()]
