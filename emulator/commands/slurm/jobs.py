"""Slurm commands that create and end jobs: ``srun``, ``sbatch``, ``scancel``.

``srun`` allocates idle, responding nodes of a partition (or runs inside an
existing allocation with ``--jobid`` or ``$SLURM_JOB_ID``) and runs its
command once per task through ``ctx.run`` on the task's node, with the
``SLURM_*`` variables a task sees. When no nodes are free it queues and waits
in simulated time, as an interactive ``srun`` does.

``sbatch`` reads the script from the virtual filesystem, honours its
``#SBATCH`` lines, and runs the script on the first node
(:mod:`emulator.commands.slurm.batch_script`), writing its output to
``slurm-<jobid>.out``; the job then shows as running for a short simulated
while before it completes.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import shlex
from collections.abc import Generator
from typing import Any

from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import Job, add_step, compress_hostlist, expand_hostlist, job_ended, release_nodes
from emulator.commands.kit.command import Context, Outcome, Result
from emulator.commands.slurm import batch_script
from emulator.commands.slurm import common as sc
from emulator.vfs import FsError

#: How long an interactive srun waits in the queue before giving up (simulated seconds).
QUEUE_WAIT_S = 600.0
#: Seconds between two looks at the queue while waiting.
QUEUE_POLL_S = 5.0
#: Most tasks one step may launch (keeps every srun bounded).
MAX_TASKS = 256
#: Seconds a batch job stays running after its command lines ran.
BATCH_RUNTIME_S = 30.0
#: GPUs a compute node offers to jobs (Gres=gpu:h100:8).
GPUS_PER_NODE = 8
#: Programs that ``srun --pty`` turns into an interactive login on the node.
SHELLS = ("bash", "sh", "zsh", "-bash")


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
        self.exclude = set(expand_hostlist(args.exclude)) if args.exclude else set()
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
    job = Job(job_id=slurm.next_job_id, name=name, user=sc.user(ctx.env), partition=req.partition, nodes=[],
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


# -- srun ------------------------------------------------------------------------------------


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
            if job.user != sc.user(ctx.env):
                raise ctx.fail(f"srun: error: Unable to confirm allocation for job {jobid}: "
                               "Access/permission denied")
            nodes = job.nodes
            if args.pty and posixpath.basename(args.command[0]) in SHELLS:  # a shell inside salloc
                return _shell(ctx, job, posixpath.basename(args.command[0]))
            if args.nodelist:
                nodes = [n for n in _expand(ctx, args.nodelist) if n in job.nodes]
            count = int(args.nodes) if args.nodes and str(args.nodes).isdecimal() else len(nodes)
            nodes = nodes[:max(1, count)]
            ntasks = args.ntasks or len(nodes) * (args.ntasks_per_node or 1)
            inherited = ctx.env.get("SLURM_NTASKS", "")
            if not (args.ntasks or args.ntasks_per_node or args.nodes or args.nodelist or args.jobid) \
                    and inherited.isdecimal():
                ntasks = int(inherited)  # salloc -n: the allocation's task count is srun's default
            status = _run_tasks(ctx, job, nodes, min(ntasks, MAX_TASKS), args)
            add_step(job, posixpath.basename(args.command[0]), "COMPLETED" if status == 0 else "FAILED",
                     f"{status}:0")
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


# -- sbatch -----------------------------------------------------------------------------------


class Sbatch(sc.SlurmCommand):
    name = "sbatch"
    summary = "submit a batch script to Slurm"
    notes = ("#SBATCH lines in the script are read as options; options on the command line win. "
             "The script's plain command lines run on the first allocated node.")

    def configure(self, parser: Any) -> None:
        job_options(parser)
        parser.add_argument("-o", "--output", metavar="FILE", help="stdout file (%%j = job id)")
        parser.add_argument("-e", "--error", metavar="FILE", help="stderr file")
        parser.add_argument("-D", "--chdir", metavar="DIR", help="working directory of the job")
        parser.add_argument("--wrap", metavar="COMMAND", help="wrap a command line in a script")
        parser.add_argument("--parsable", action="store_true", help="print only the job id")
        parser.add_argument("-H", "--hold", action="store_true", help="submit in held state")
        parser.add_argument("-d", "--dependency", metavar="LIST", help="start after these jobs")
        parser.add_argument("script", nargs="?", metavar="SCRIPT", help="batch script")
        parser.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS", help="script arguments")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.wrap is not None:
            text, path = f"#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{args.wrap}\n", "wrap"
        elif args.script:
            path = args.script
            try:
                text = ctx.fs.read(path)
            except FsError:
                raise ctx.fail(f"sbatch: error: Unable to open file {path}") from None
        else:
            raise ctx.fail("sbatch: error: Batch script is empty!\n"
                           "sbatch: error: reading a script from standard input is not supported here")
        if not text.startswith("#!"):
            raise ctx.fail("sbatch: error: This does not look like a batch script.  The first\n"
                           "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
                           "sbatch: error: For instance: #!/bin/sh")
        merged = self._merge(ctx, text, args)
        req = Request(ctx, "sbatch", merged)
        cluster = ctx.cluster
        name = merged.job_name or ("wrap" if args.wrap is not None else posixpath.basename(path))
        command = "(null)" if args.wrap is not None else ctx.fs.abspath(path)
        job = new_job(ctx, req, name, "PENDING", command)
        workdir = ctx.fs.abspath(merged.chdir) if merged.chdir else ctx.cwd
        job.workdir = workdir
        job.stdout = posixpath.join(workdir, (merged.output or "slurm-%j.out").replace("%j", str(job.job_id))
                                    .replace("%x", name).replace("%u", job.user))
        if merged.hold or merged.dependency:
            job.reason = "JobHeldUser" if merged.hold else "Dependency"
        else:
            chosen = req.pick(cluster)
            if chosen is not None:
                start(cluster, job, chosen)
                job.steps = [("batch", "RUNNING", "0:0"), ("extern", "RUNNING", "0:0")]
                self._run_script(ctx, job, text)
        ctx.outln(str(job.job_id) if merged.parsable else f"Submitted batch job {job.job_id}")
        return 0

    def _merge(self, ctx: Context, text: str, args: argparse.Namespace) -> argparse.Namespace:
        """Options from ``#SBATCH`` lines, overridden by the command line."""
        words: list[str] = []
        for line in text.splitlines()[1:]:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                break
            if stripped.startswith("#SBATCH"):
                try:
                    words += shlex.split(stripped[len("#SBATCH"):], comments=True)
                except ValueError:
                    continue
        from_script = self.parse(words) if words else self.parse([])
        for key, value in vars(args).items():
            default = self.parser().get_default(key)
            if value not in (None, False, []) and value != default:
                setattr(from_script, key, value)
        return from_script

    def _run_script(self, ctx: Context, job: Job, text: str) -> None:
        """Run the script on the batch host and write its output file; the job ends a little later."""
        cluster = ctx.cluster
        host = cluster.nodes[job.nodes[0]]
        env = {**task_env(cluster, job, job.nodes, job.num_nodes * job.ntasks_per_node, 0, 0, 0),
               "SLURM_SUBMIT_DIR": ctx.cwd}
        env.pop("SLURM_PROCID")
        output, status = batch_script.run(ctx, host, text, env, f"/var/spool/slurmd/job{job.job_id}/slurm_script")
        try:
            ctx.fs.write(job.stdout, output)
        except FsError as exc:
            ctx.err(f"sbatch: error: {exc}\n")
        end = ctx.clock.elapsed + BATCH_RUNTIME_S
        cluster.clock.schedule(end, lambda: sc.finish_job(cluster, job, status, end))


# -- scancel ------------------------------------------------------------------------------------


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
        me = sc.user(ctx.env)
        status = 0
        targets: list[Job] = []
        for text in args.jobs:
            base = text.split("_")[0].split(".")[0]
            job = cluster.slurm.job(int(base)) if base.isdecimal() else None
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
            if job.user != me and me != "root":
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


def commands() -> list[Any]:
    return [Srun(), Sbatch(), Scancel()]
