"""Slurm's state in the model: node states, partitions and jobs, plus hostlists.

Tools (``sinfo``, ``squeue``, ``sacct``, ``scontrol``, ``srun``, ``sbatch``,
``scancel``) render and change this state; nothing here formats output
except the hostlist helpers, which every tool shares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.cluster.hardware import Partition


@dataclass(frozen=True)
class StepRun:
    """Where and when one job step ran: its nodes and tasks, its start and end (offsets, s)."""

    nodes: tuple[str, ...]
    ntasks: int
    start_s: float
    end_s: float


@dataclass
class Job:
    """A Slurm job. Times are offsets in seconds from the clock's start."""

    job_id: int
    name: str
    user: str
    partition: str
    nodes: list[str]
    state: str                 # PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL
    submit_s: float
    start_s: float | None = None
    end_s: float | None = None
    time_limit: str = "2-00:00:00"
    num_nodes: int = 0
    gpus_per_node: int = 8
    cpus_per_task: int = 28
    ntasks_per_node: int = 8
    reason: str = "None"       # pending reason: Resources / Priority / Dependency
    exit_code: str = "0:0"
    account: str = "llm"
    qos: str = "normal"
    command: str = ""
    workdir: str = ""
    stdout: str = ""
    #: The training run this job executes, if any (``Cluster.training``).
    is_training: bool = False
    #: Job steps for sacct: (step name, state, exit code).
    steps: list[tuple[str, str, str]] = field(default_factory=list)
    #: Whether Slurm may requeue the job after a node failure (``--requeue``).
    requeue: bool = False
    #: Who cancelled the job (uid), for sacct's ``CANCELLED by N``.
    cancelled_by: int | None = None
    #: The node whose failure ended the job (NODE_FAIL), for sacct's FailedNode.
    failed_node: str = ""
    #: An interactive shell (``srun --pty bash``): the job lasts while the shell is open.
    interactive: bool = False
    #: Program names of numbered steps (``"1": "nvidia-smi"``), for sacct's JobName.
    step_names: dict[str, str] = field(default_factory=dict)
    #: Where and when each numbered step ``srun`` ran in an existing allocation ran.
    step_runs: dict[str, StepRun] = field(default_factory=dict)
    #: srun's task distribution of the job's steps, as ``sacct --json`` reports it.
    distribution: str = "Block"
    #: ``--dependency``, e.g. ``afterok:48213``.
    dependency: str = ""
    #: An allocation made by ``salloc``: its shell runs on the login node, it has no batch script.
    salloc: bool = False
    #: When a requeued job may start again (its BeginTime), for ``EligibleTime=``.
    eligible_s: float | None = None
    #: Times the job was requeued (``scontrol requeue``), for ``Restarts=``.
    restarts: int = 0
    #: The runs before each requeue, ended in state REQUEUED, for ``sacct --duplicates``.
    earlier_runs: list[Job] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.num_nodes:
            self.num_nodes = max(1, len(self.nodes))

    @property
    def batch(self) -> bool:
        """Whether the job runs a batch script (``sbatch``; ``(null)`` for ``--wrap``)."""
        return not self.salloc and (self.command.startswith("/") or self.command == "(null)")


def job_steps(job: Job) -> list[tuple[str, str, str]]:
    """The job's steps as sacct lists them; a batch job has .batch, .extern and .0 by default."""
    if job.steps:
        return job.steps
    state = job.state
    if state == "PENDING":
        return []
    if state == "RUNNING":
        return [("batch", "RUNNING", "0:0"), ("extern", "RUNNING", "0:0"), ("0", "RUNNING", "0:0")]
    if state in ("CANCELLED", "NODE_FAIL"):
        return [("batch", "CANCELLED", "0:15"), ("extern", "COMPLETED", "0:0"), ("0", "CANCELLED", "0:15")]
    return [("batch", state, job.exit_code), ("extern", "COMPLETED", "0:0"), ("0", state, job.exit_code)]


def add_step(job: Job, program: str, state: str, exit_code: str, ran: StepRun | None = None) -> str:
    """Record one more ``srun`` step inside the allocation (``ran``: where and when, where known); returns
    its number."""
    steps = job_steps(job)
    number = str(1 + max((int(s[0]) for s in steps if s[0].isdecimal()), default=-1))
    job.steps = steps + [(number, state, exit_code)]
    job.step_names[number] = program
    if ran is not None:
        job.step_runs[number] = ran
    return number


def close_steps(job: Job) -> None:
    """When the job ends, steps still running end with it (killed unless the job completed)."""
    killed = job.state in ("CANCELLED", "NODE_FAIL", "TIMEOUT")
    closed = []
    for name, state, code in job_steps(job) if job.steps else []:
        if state == "RUNNING":
            if name == "extern":
                state, code = "COMPLETED", "0:0"
            elif killed:
                state, code = "CANCELLED", "0:15"
            else:
                state, code = job.state, job.exit_code
        closed.append((name, state, code))
    job.steps = closed


def dependency_state(slurm: SlurmState, job: Job) -> str:
    """``unfulfilled``, ``fulfilled`` or ``failed`` for an ``afterok:ID[:ID]`` dependency."""
    kind, _, ids = job.dependency.partition(":")
    states = [other.state for other in slurm.jobs if str(other.job_id) in ids.split(":")]
    if kind != "afterok" or not states:
        return "unfulfilled"
    if any(s in ("FAILED", "CANCELLED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY") for s in states):
        return "failed"
    return "fulfilled" if all(s == "COMPLETED" for s in states) else "unfulfilled"


def settle_dependencies(slurm: SlurmState) -> None:
    """A pending job whose dependency can no longer be met says so (Slurm keeps it pending)."""
    for job in slurm.jobs:
        if job.state == "PENDING" and job.dependency and dependency_state(slurm, job) == "failed":
            job.reason = "DependencyNeverSatisfied"


def job_ended(slurm: SlurmState, job: Job) -> None:
    """Book-keeping once a job reaches a final state: its steps end, dependants learn of it."""
    close_steps(job)
    settle_dependencies(slurm)


def release_nodes(slurm: SlurmState, nodes: list[str]) -> None:
    """Nodes no running job holds any more leave the allocation: alloc and mix become idle, drng drain."""
    for name in nodes:
        if any(j.state == "RUNNING" and name in j.nodes for j in slurm.jobs):
            continue
        state = slurm.node_state.get(name, "idle")
        slurm.node_state[name] = {"alloc": "idle", "mix": "idle", "drng": "drain"}.get(state, state)


@dataclass
class Reboot:
    """A pending ``scontrol reboot`` of one node: REBOOT_REQUESTED until slurmctld issues it."""

    asap: bool = False
    #: The node carries the DRAIN flag until the reboot completes (``ASAP``, or drained before).
    drain: bool = False
    #: The state the node takes when slurmd registers after the boot: ``resume``, ``down``, or ``""`` (none given).
    next_state: str = ""
    issued: bool = False
    #: When it was requested (offset s).
    requested_s: float = 0.0


@dataclass
class SlurmState:
    cluster_name: str
    controller: str
    partitions: list[Partition]
    #: Per-node Slurm state: idle, alloc, mix, drain, drng, down, and the "*" suffix
    #: is derived from HostHealth (not responding), not stored here.
    node_state: dict[str, str]
    node_reason: dict[str, str]
    jobs: list[Job]
    next_job_id: int
    #: Who set each node's reason and when: node → (user, offset s), for ``sinfo -R``.
    reason_set: dict[str, tuple[str, float]] = field(default_factory=dict)
    #: slurm.conf SlurmdTimeout: seconds without contact before a node is set DOWN.
    slurmd_timeout_s: float = 300.0
    #: Nodes with a reboot requested or issued (``scontrol reboot``).
    reboots: dict[str, Reboot] = field(default_factory=dict)

    def job(self, job_id: int) -> Job | None:
        for job in self.jobs:
            if job.job_id == job_id:
                return job
        return None


# -- hostlists ---------------------------------------------------------------------

_NAME = re.compile(r"^(.*?)(\d+)$")


def compress_hostlist(names: list[str]) -> str:
    """``["node01","node02","node03","node07"]`` → ``node[01-03,07]`` (Slurm's form)."""
    groups: dict[tuple[str, int], list[int]] = {}
    order: list[tuple[str, int]] = []
    plain: list[str] = []
    for name in names:
        m = _NAME.match(name)
        if not m:
            plain.append(name)
            continue
        key = (m.group(1), len(m.group(2)))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    parts = list(plain)
    for prefix, width in order:
        nums = sorted(set(groups[(prefix, width)]))
        if len(nums) == 1:
            parts.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        ranges: list[str] = []
        start = prev = nums[0]
        for n in [*nums[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(f"{start:0{width}d}" if start == prev else f"{start:0{width}d}-{prev:0{width}d}")
            if n is not None:
                start = prev = n
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def expand_hostlist(expr: str) -> list[str]:
    """``node[01-03,07],login01`` → the names, in order. Raises ValueError on bad syntax."""
    names: list[str] = []
    for part in _split_top(expr):
        m = re.fullmatch(r"([^\[\]]*)\[([^\[\]]+)\]([^\[\]]*)", part)
        if not m:
            if "[" in part or "]" in part or not part:
                raise ValueError(f"invalid hostlist: {expr}")
            names.append(part)
            continue
        prefix, body, suffix = m.groups()
        for item in body.split(","):
            if "-" in item:
                lo, hi = item.split("-", 1)
                if not (lo.isdecimal() and hi.isdecimal()) or int(hi) < int(lo) or int(hi) - int(lo) > 100000:
                    raise ValueError(f"invalid hostlist: {expr}")
                width = len(lo)
                names += [f"{prefix}{n:0{width}d}{suffix}" for n in range(int(lo), int(hi) + 1)]
            elif item.isdecimal():
                names.append(f"{prefix}{item}{suffix}")
            else:
                raise ValueError(f"invalid hostlist: {expr}")
    return names


def _split_top(expr: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for p in parts if p]
