"""A job's allocation: what it asks for, the nodes it gets, and the environment its tasks see.

:class:`Request` checks a request (partition, node count and list, tasks,
GPUs, time limit) against the partition with Slurm's errors; :func:`new_job`
queues it and :func:`start` gives it nodes, now or, through
:func:`wait_for_nodes`, once nodes free up in simulated time. ``srun``,
``sbatch`` and ``salloc`` share these, and the options that describe a
request (:func:`job_options`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Generator
from typing import Any

from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, compress_hostlist, expand_hostlist
from emulator.commands.kit.command import Context
from emulator.commands.slurm import common as sc

#: How long an interactive srun waits in the queue before giving up (simulated seconds).
QUEUE_WAIT_S = 600.0
#: Seconds between two looks at the queue while waiting.
QUEUE_POLL_S = 5.0
#: Most tasks one step may launch (keeps every srun bounded).
MAX_TASKS = 256
#: GPUs a compute node offers to jobs (Gres=gpu:h100:8).
GPUS_PER_NODE = 8


def job_options(parser: Any) -> None:
    """Options srun, sbatch and salloc share."""
    parser.add_argument("-N", "--nodes", metavar="N", help="number of nodes")
    parser.add_argument("-n", "--ntasks", type=int, metavar="N", help="number of tasks")
    parser.add_argument("--ntasks-per-node", type=int, metavar="N", help="tasks on each node")
    parser.add_argument("-c", "--cpus-per-task", type=int, metavar="N", help="CPUs per task")
    parser.add_argument("-w", "--nodelist", metavar="NODES", help="run on these nodes (hostlist)")
    parser.add_argument("-x", "--exclude", metavar="NODES", help="do not use these nodes")
    parser.add_argument("-p", "--partition", metavar="PARTITION", help="partition to allocate from")
    parser.add_argument("-J", "--job-name", metavar="NAME", help="name of the job")
    parser.add_argument("-t", "--time", metavar="TIME", help="time limit")
    parser.add_argument("-A", "--account", metavar="ACCOUNT", help="account to charge")
    parser.add_argument("-q", "--qos", metavar="QOS", help="quality of service")
    parser.add_argument("-G", "--gpus", metavar="N", help="GPUs for the whole job")
    parser.add_argument("--gpus-per-node", metavar="N", help="GPUs on each node")
    parser.add_argument("--gres", metavar="LIST", help="generic resources per node (gpu:8)")
    parser.add_argument("--exclusive", action="store_true", help="whole nodes")
    parser.add_argument("--mem", metavar="SIZE", help="memory per node")


class Request:
    """What a job asks for, checked against the partition."""

    def __init__(self, ctx: Context, prog: str, args: argparse.Namespace) -> None:
        cluster = ctx.cluster
        self.prog = prog
        parts = {p.name: p for p in cluster.slurm.partitions}
        default = next((p.name for p in cluster.slurm.partitions if p.default), "")
        self.partition = args.partition or default
        if self.partition not in parts:
            raise ctx.fail(self.error("Invalid partition name specified"))
        members = parts[self.partition].nodes
        self.nodelist: list[str] = []
        if args.nodelist:
            try:
                self.nodelist = expand_hostlist(args.nodelist)
            except ValueError:
                raise ctx.fail(self.error("Invalid node name specified")) from None
            if any(n not in cluster.slurm.node_state for n in self.nodelist):
                raise ctx.fail(self.error("Invalid node name specified"))
            if any(n not in members for n in self.nodelist):
                raise ctx.fail(self.error("Requested node configuration is not available"))
        try:
            self.exclude = set(expand_hostlist(args.exclude)) if args.exclude else set()
        except ValueError:
            raise ctx.fail(self.error("Invalid node name specified")) from None
        nodes_arg = args.nodes
        if nodes_arg is not None and not str(nodes_arg).split("-")[0].isdecimal():
            raise ctx.fail(f"{prog}: error: \"{nodes_arg}\" is not a valid node count")
        want = int(str(nodes_arg).split("-")[0]) if nodes_arg else 0
        per_node = args.ntasks_per_node
        if not want:
            want = max(len(self.nodelist), 1)
            if args.ntasks and per_node:
                want = max(want, -(-args.ntasks // per_node))
        if want < 1 or want > len(members):
            raise ctx.fail(self.error("Requested node configuration is not available"))
        self.num_nodes = max(want, len(self.nodelist))
        self.ntasks = args.ntasks or self.num_nodes * (per_node or 1)
        if self.ntasks < 1 or self.ntasks > MAX_TASKS:
            raise ctx.fail(f"{prog}: error: Invalid numeric value \"{self.ntasks}\" for --ntasks.")
        self.members = members
        self.gpus = _gpus(args)
        if self.gpus > GPUS_PER_NODE:
            raise ctx.fail(self.error("Requested node configuration is not available"))
        self.time = args.time
        if self.time is not None:
            limit = sc.parse_limit(self.time)
            if limit is None:
                raise ctx.fail(f"{prog}: error: Invalid --time specification")
            most = sc.limit_seconds(parts[self.partition].time_limit)
            wanted = sc.limit_seconds(limit)
            if most is not None and wanted is not None and wanted > most:
                raise ctx.fail(self.error("Requested time limit is invalid (missing or exceeds some limit)"))
        self.name = args.job_name
        self.account = args.account or "llm"

    def error(self, reason: str) -> str:
        verb = {"sbatch": "Batch job submission failed", "salloc": "Job submit/allocate failed"}.get(
            self.prog, "Unable to allocate resources")
        return f"{self.prog}: error: {verb}: {reason}"

    def note_unavailable(self, cluster: Cluster, job: Job) -> bool:
        """Give a pending job the reason ``ReqNodeNotAvail`` when a node it names is down or drained."""
        unavailable = [n for n in self.nodelist if not free(cluster, n)
                       and cluster.slurm.node_state.get(n) in ("down", "drain", "drng")]
        if unavailable:
            job.reason = f"ReqNodeNotAvail, UnavailableNodes:{compress_hostlist(unavailable)}"
        return bool(unavailable)

    def pick(self, cluster: Cluster) -> list[str] | None:
        """Nodes to allocate now, or None when the request must wait."""
        idle = [n for n in self.members if n not in self.exclude and free(cluster, n)]
        if any(n not in idle for n in self.nodelist):
            return None
        chosen = list(self.nodelist) + [n for n in idle if n not in self.nodelist]
        chosen = chosen[: self.num_nodes]
        return chosen if len(chosen) == self.num_nodes else None


def _gpus(args: argparse.Namespace) -> int:
    for value in (args.gpus_per_node, (args.gres or "").split(":")[-1] if args.gres else None):
        if value:
            digits = re.sub(r"^.*:", "", str(value))
            if digits.isdecimal():
                return int(digits)
    return GPUS_PER_NODE


def free(cluster: Cluster, name: str) -> bool:
    node = cluster.nodes.get(name)
    return cluster.slurm.node_state.get(name) == "idle" and node is not None and node.health.os_up


def new_job(ctx: Context, req: Request, name: str, state: str, command: str) -> Job:
    slurm = ctx.cluster.slurm
    now = ctx.clock.elapsed
    job = Job(job_id=slurm.next_job_id, name=name, user=ctx.user, partition=req.partition, nodes=[],
              state=state, submit_s=now, num_nodes=req.num_nodes, gpus_per_node=req.gpus,
              ntasks_per_node=max(1, req.ntasks // req.num_nodes), cpus_per_task=1, account=req.account,
              command=command, workdir=ctx.cwd, reason="Resources" if state == "PENDING" else "None",
              time_limit=(sc.parse_limit(req.time) if req.time else None)
              or next(p.time_limit for p in slurm.partitions if p.name == req.partition))
    slurm.next_job_id += 1
    slurm.jobs.append(job)
    return job


def start(cluster: Cluster, job: Job, nodes: list[str]) -> None:
    job.nodes, job.state, job.start_s, job.reason = list(nodes), "RUNNING", cluster.clock.elapsed, "None"
    for n in nodes:
        cluster.slurm.node_state[n] = "alloc"


def task_env(cluster: Cluster, job: Job, nodes: list[str], ntasks: int, rank: int, node_index: int,
             local: int) -> dict[str, str]:
    """The ``SLURM_*`` environment of one task."""
    hostlist = compress_hostlist(nodes)
    return {
        "SLURM_JOB_ID": str(job.job_id), "SLURM_JOBID": str(job.job_id), "SLURM_JOB_NAME": job.name,
        "SLURM_JOB_NODELIST": hostlist, "SLURM_NODELIST": hostlist, "SLURM_JOB_NUM_NODES": str(len(nodes)),
        "SLURM_NNODES": str(len(nodes)), "SLURM_NTASKS": str(ntasks), "SLURM_NPROCS": str(ntasks),
        "SLURM_PROCID": str(rank), "SLURM_LOCALID": str(local), "SLURM_NODEID": str(node_index),
        "SLURMD_NODENAME": nodes[node_index], "SLURM_JOB_PARTITION": job.partition, "SLURM_JOB_USER": job.user,
        "SLURM_CLUSTER_NAME": cluster.slurm.cluster_name, "SLURM_GPUS_ON_NODE": str(job.gpus_per_node),
        "CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in range(job.gpus_per_node)),
    }


def wait_for_nodes(ctx: Context, job: Job, req: Request) -> Generator[float, None, list[str] | None]:
    """Poll the queue in simulated time and start ``job`` once nodes are free; None when it gives up.

    Giving up, or Ctrl-C while waiting, cancels the pending job.
    """
    cluster = ctx.cluster
    waited = 0.0
    try:
        while waited < QUEUE_WAIT_S:
            yield QUEUE_POLL_S
            waited += QUEUE_POLL_S
            chosen = req.pick(cluster)
            if chosen is not None:
                ctx.err(f"{req.prog}: job {job.job_id} has been allocated resources\n")
                start(cluster, job, chosen)
                return chosen
        ctx.err(f"{req.prog}: Job allocation {job.job_id} has been revoked.\n")
        return None
    finally:
        if job.state == "PENDING":
            job.state, job.end_s, job.reason = "CANCELLED", cluster.clock.elapsed, "None"
            job.cancelled_by = sc.UIDS.get(job.user, 1000)
