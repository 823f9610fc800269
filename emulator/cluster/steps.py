"""The step-time model of the training run, and its place on the simulated clock.

One synchronous step, per rank: wait for the input batch (loader workers x
CPU time per batch against the step time, storage reads and metadata
latency), compute (6·N FLOPs per token, or 8·N with activation recompute, at
a realistic kernel efficiency, scaled by the GPU's clock), then
communicate (tensor-parallel all-reduces on the critical path, the
data-parallel gradient all-reduce mostly hidden behind backward). The
slowest rank holds everyone at the next collective, so every other rank's
difference shows as time waiting in the all-reduce.

:func:`profile` returns that breakdown; :func:`schedule` places the run on
the clock (allocation, initialisation, first batch, steady state, checkpoint
saves, a hang); :mod:`emulator.cluster.joblogs` renders the logs from both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

from emulator.cluster import storage
from emulator.cluster.catalog import H100
from emulator.cluster.collectives import CollectiveError, collective
from emulator.cluster.gpu_rates import gpu_speed_factor
from emulator.cluster.model import Cluster
from emulator.cluster.training import Rank, TrainingRun

#: Fraction of BF16 dense peak the kernels reach at a large micro-batch.
KERNEL_EFFICIENCY = 0.48
#: Soft knee of kernel efficiency in micro-batch size: eff = peak * mb / (mb + knee).
MICRO_BATCH_KNEE = 0.2
#: Compute slowdown of a rank whose process runs on the other socket (remote memory, launch latency).
NUMA_COMPUTE_PENALTY = 1.07
NUMA_LOADER_PENALTY = 1.45
#: DDP gradient bucket size (bytes): one all-reduce per bucket.
BUCKET_BYTES = 25 * 2**20
#: Share of the gradient all-reduce that stays exposed however long backward is (the last buckets).
EXPOSED_MIN = 0.2
#: Part of the backward pass the gradient all-reduce can hide behind.
OVERLAP_WINDOW = 0.3
#: Input: random reads per packed sample, and file opens per micro-batch.
READS_PER_SAMPLE = 16
OPENS_PER_BATCH = 0.25
#: Host-to-device copy and collation per micro-batch once a batch is ready, s.
FETCH_S = 0.0015
#: Copy of one rank's checkpoint state to host memory before an async save, GB/s.
SNAPSHOT_GBPS = 20.0
#: PyTorch's default ProcessGroupNCCL timeout (ms).
NCCL_TIMEOUT_MS = 600_000
#: How long after the watchdog fires the launcher has torn the job down, s.
TEARDOWN_S = 31.0
#: How long an earlier, failed attempt of the job ran before it hung, s.
PAST_ATTEMPT_S = 2400.0


@dataclass(frozen=True)
class RankStep:
    """One rank's share of a steady-state step, in seconds."""

    rank: int
    node: str
    gpu: int
    data_s: float
    compute_s: float
    comm_s: float              # exposed communication plus waiting for the slowest rank

    @property
    def busy_s(self) -> float:
        return self.data_s + self.compute_s


@dataclass(frozen=True)
class StepProfile:
    """The steady-state step of the run, and what bounds it."""

    step_s: float
    tokens_per_s: float
    tflops_per_gpu: float      # model FLOPs (6·N), as MFU counts them
    mfu: float
    ranks: list[RankStep]
    data_wait_s: float         # rank 0's wait for input
    loader_s: float            # worker time to produce one step's batches (rank 0)
    compute_s: float           # the slowest rank's compute
    dp_comm_s: float           # full gradient all-reduce time
    tp_comm_s: float           # tensor-parallel all-reduces per step (exposed)
    exposed_comm_s: float
    late_rank: int | None      # the rank the others wait for, when one stands out
    checkpoint_bytes: float
    checkpoint_write_s: float  # time to write one checkpoint to the parallel fs
    checkpoint_stall_s: float  # what every rank loses per save (sync: all of it)
    bound: str                 # "compute", "input", "communication"
    transport: str             # what the gradient all-reduce runs over


def _efficiency(run: TrainingRun) -> float:
    mb = max(1, run.micro_batch)
    return KERNEL_EFFICIENCY * mb / (mb + MICRO_BATCH_KNEE)


def _compute_s(cluster: Cluster, run: TrainingRun, rank: Rank) -> float:
    flops_per_token = (8.0 if run.activation_recompute else 6.0) * run.params_b * 1e9
    per_gpu = flops_per_token * run.tokens_per_step / max(1, run.world_size)
    node = cluster.node(rank.node)
    speed = gpu_speed_factor(node.gpus[rank.gpu]) if node and rank.gpu < len(node.gpus) else 1.0
    seconds = per_gpu / (H100.bf16_dense_tflops * 1e12 * _efficiency(run) * max(0.02, speed))
    if _misbound(cluster, run, rank):
        seconds *= NUMA_COMPUTE_PENALTY
    return seconds


def _misbound(cluster: Cluster, run: TrainingRun, rank: Rank) -> bool:
    """Whether the rank's process runs on another NUMA node than its GPU."""
    if rank.rank not in run.rank_numa:
        return False
    node = cluster.node(rank.node)
    if node is None or rank.gpu >= len(node.gpus):
        return False
    return run.rank_numa[rank.rank] != node.gpus[rank.gpu].numa_node


def loader_io_s(cluster: Cluster, run: TrainingRun) -> float:
    """Seconds a loader worker spends on storage reads and opens for one micro-batch."""
    fs = cluster.storage
    miss = 1.0 - fs.client_cache_hit
    io = run.micro_batch * READS_PER_SAMPLE * miss * storage.read_latency_ms(fs) / 1000.0
    return io + OPENS_PER_BATCH * storage.metadata_latency_ms(fs) / 1000.0


def loader_batch_s(cluster: Cluster, run: TrainingRun, rank: Rank | None = None) -> float:
    """Seconds one loader worker needs to produce one micro-batch (CPU work plus reads)."""
    io = loader_io_s(cluster, run)
    cpu = run.batch_cpu_s
    if rank is not None and _misbound(cluster, run, rank):
        cpu *= NUMA_LOADER_PENALTY
    return cpu + io


def _groups(run: TrainingRun) -> tuple[list[Rank], list[Rank]]:
    """Rank 0's tensor-parallel group and its data-parallel group (tp is the fastest index)."""
    tp = max(1, run.tp)
    tp_group = [r for r in run.ranks if r.rank // tp == 0]
    dp_group = [r for r in run.ranks if r.rank % (tp * max(1, run.pp)) == 0]
    return tp_group, dp_group


def _collective_s(cluster: Cluster, run: TrainingRun, op: str, size: float, group: list[Rank]) -> tuple[float, str]:
    if len(group) <= 1 or size <= 0:
        return 0.0, "local"
    try:
        result = collective(cluster, op, int(size), [(r.node, r.gpu) for r in group], run.env, sample="training")
    except CollectiveError:
        return math.inf, "unavailable"
    return result.time_us / 1e6, result.transport


def profile(cluster: Cluster) -> StepProfile:
    """The steady-state step of ``cluster.training`` under the current state."""
    run = cluster.training
    if run is None or not run.ranks:
        raise ValueError("no training run in this cluster")
    computes = {r.rank: _compute_s(cluster, run, r) for r in run.ranks}
    slowest_compute = max(computes.values())
    backward = slowest_compute * (0.75 if run.activation_recompute else 2.0 / 3.0)

    tp_group, dp_group = _groups(run)
    grad_bytes = run.params_b * 1e9 * 2.0 / (max(1, run.tp) * max(1, run.pp))
    dp_s, transport = _collective_s(cluster, run, "all_reduce", grad_bytes, dp_group)
    exposed_dp = max(EXPOSED_MIN * dp_s, dp_s - OVERLAP_WINDOW * backward)
    tp_s = 0.0
    if run.tp > 1:
        msg = run.micro_batch * run.seq_len * run.hidden * 2.0
        one, _ = _collective_s(cluster, run, "all_reduce", msg, tp_group)
        per_layer = 6 if run.activation_recompute else 4
        tp_s = one * per_layer * run.layers * run.grad_accum
    exposed = exposed_dp + tp_s

    datas: dict[int, float] = {}
    loader_rank0 = 0.0
    for r in run.ranks:
        loader = run.grad_accum * loader_batch_s(cluster, run, r) / max(1, run.loader_workers)
        if r.rank == 0:
            loader_rank0 = loader
        overlap = computes[r.rank] + exposed
        datas[r.rank] = max(0.0, loader - overlap) + run.grad_accum * FETCH_S
    busy = {rk: datas[rk] + computes[rk] for rk in computes}
    slowest = max(busy.values())
    step_s = slowest + exposed

    ranks = [RankStep(rank=r.rank, node=r.node, gpu=r.gpu, data_s=datas[r.rank], compute_s=computes[r.rank],
                      comm_s=step_s - busy[r.rank]) for r in run.ranks]
    ordered = sorted(busy.values())
    median = ordered[len(ordered) // 2]
    late = max(busy, key=lambda k: (busy[k], -k))
    late_rank = late if busy[late] > median * 1.03 else None

    fs = cluster.storage
    ckpt_bytes = run.params_b * 1e9 * run.checkpoint_bytes_per_param
    write_s = storage.checkpoint_write_s(fs, ckpt_bytes, len(run.nodes))
    if run.async_checkpoint:
        stall = ckpt_bytes / max(1, run.world_size) / (SNAPSHOT_GBPS * 1e9) + 0.2
    else:
        stall = write_s

    tokens_per_s = run.tokens_per_step / step_s if math.isfinite(step_s) else 0.0
    model_flops = 6.0 * run.params_b * 1e9 * tokens_per_s / max(1, run.world_size)
    tflops = model_flops / 1e12
    data0 = datas.get(0, 0.0)
    parts = {"input": max(datas.values()), "communication": exposed, "compute": slowest_compute}
    bound = max(parts, key=lambda k: parts[k])
    return StepProfile(
        step_s=step_s, tokens_per_s=tokens_per_s, tflops_per_gpu=tflops, mfu=tflops * 1e12 / (H100.bf16_dense_tflops * 1e12),
        ranks=ranks, data_wait_s=data0, loader_s=loader_rank0, compute_s=slowest_compute, dp_comm_s=dp_s,
        tp_comm_s=tp_s, exposed_comm_s=exposed, late_rank=late_rank, checkpoint_bytes=ckpt_bytes,
        checkpoint_write_s=write_s, checkpoint_stall_s=stall, bound=bound, transport=transport,
    )


def previous_run(run: TrainingRun) -> TrainingRun | None:
    """The run as the previous job configured it (``run.previous_config``), if it differed."""
    if not run.previous_config:
        return None
    return replace(run, **run.previous_config)  # type: ignore[arg-type]


def profile_of(cluster: Cluster, run: TrainingRun) -> StepProfile:
    """:func:`profile` of another configuration of the run on the same hardware."""
    saved, cluster.training = cluster.training, run
    try:
        return profile(cluster)
    finally:
        cluster.training = saved


# -- the run on the clock ------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """Where the run's phases fall on the clock (offsets in seconds from the clock's start).

    Steps run at ``step_s``; when a condition began during the run
    (``change_s``), the steps before it ran at ``early_step_s``. A checkpoint
    save follows every step that is a multiple of ``every`` and delays the
    next step by ``stall_s``.
    """

    started_s: float           # allocation granted, srun launched
    init_s: float              # processes up, NCCL and model initialisation begins
    first_batch_s: float       # waiting for the first input batch
    steady_s: float            # first step starts
    resume_step: int           # the checkpoint step the run resumed from
    step_s: float
    every: int
    stall_s: float
    hang_s: float | None       # no step completes after this offset
    early_step_s: float | None = None
    change_s: float | None = None

    def _end(self, start_step: int, start_s: float, step_s: float, step: int) -> float:
        saves = (step - 1) // self.every - start_step // self.every
        return start_s + (step - start_step) * step_s + saves * self.stall_s

    def _completed(self, start_step: int, start_s: float, step_s: float, offset: float) -> int:
        lo, hi = start_step, start_step + max(0, int((offset - start_s) / step_s)) + 1
        while lo < hi:                     # the largest step that ended by ``offset``
            mid = (lo + hi + 1) // 2
            if self._end(start_step, start_s, step_s, mid) <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    @cached_property
    def split(self) -> tuple[int, float] | None:
        """(first step of the later rate, its start offset), when the rate changed mid-run."""
        if self.early_step_s is None or self.change_s is None or self.change_s <= self.steady_s:
            return None
        s0 = self._completed(self.resume_step, self.steady_s, self.early_step_s, self.change_s)
        if s0 == self.resume_step:
            return s0, self.steady_s
        t0 = self._end(self.resume_step, self.steady_s, self.early_step_s, s0)
        if s0 % self.every == 0:
            t0 += self.stall_s
        return s0, t0

    def rate_at(self, step: int) -> float:
        """Seconds per step around global ``step``."""
        split = self.split
        if split is not None and self.early_step_s is not None and step <= split[0]:
            return self.early_step_s
        return self.step_s

    def step_end(self, step: int) -> float:
        """Offset at which global ``step`` (> resume_step) completes."""
        split = self.split
        if split is None:
            return self._end(self.resume_step, self.steady_s, self.step_s, step)
        if step <= split[0]:
            return self._end(self.resume_step, self.steady_s, self.early_step_s or self.step_s, step)
        return self._end(split[0], split[1], self.step_s, step)

    def completed_at(self, offset: float) -> int:
        """The last global step completed at ``offset``."""
        if self.hang_s is not None:
            offset = min(offset, self.hang_s)
        split = self.split
        if split is None:
            return self._completed(self.resume_step, self.steady_s, self.step_s, offset)
        if offset < split[1]:
            return min(split[0], self._completed(self.resume_step, self.steady_s, self.early_step_s or self.step_s,
                                                 offset))
        return self._completed(split[0], split[1], self.step_s, offset)

    def saving_at(self, offset: float) -> int | None:
        """The step being saved at ``offset``, if a checkpoint save is in progress."""
        if offset < self.steady_s or (self.hang_s is not None and offset >= self.hang_s):
            return None
        step = self.completed_at(offset)
        if step > self.resume_step and step % self.every == 0 and offset < self.step_end(step) + self.stall_s:
            return step
        return None

    def into_step(self, offset: float) -> float:
        """Seconds since the step in progress at ``offset`` began."""
        step = self.completed_at(offset)
        begin = self.steady_s if step == self.resume_step else self.step_end(step)
        if step > self.resume_step and step % self.every == 0:
            begin += self.stall_s
        return max(0.0, offset - begin)

    def saves_between(self, start: float, end: float) -> list[tuple[int, float, float]]:
        """Checkpoint saves (step, start offset, end offset) that begin in [start, end)."""
        saves: list[tuple[int, float, float]] = []
        step = (self.resume_step // self.every + 1) * self.every
        while len(saves) <= 10_000:
            begin = self.step_end(step)
            if begin >= end or (self.hang_s is not None and begin >= self.hang_s):
                break
            if begin >= start:
                saves.append((step, begin, begin + self.stall_s))
            step += self.every
        return saves


def schedule(cluster: Cluster, prof: StepProfile | None = None) -> Schedule:
    """Place the run on the clock: ``run.start_step`` is about where it stands at offset 0."""
    run = cluster.training
    if run is None:
        raise ValueError("no training run in this cluster")
    prof = prof or profile(cluster)
    init = run.started_s + run.alloc_s
    first = init + run.init_s
    steady = first + run.first_batch_s
    every = max(1, run.checkpoint_every)
    step_s = prof.step_s if math.isfinite(prof.step_s) else 1e9
    early = run.baseline_step_s if run.degraded_s is not None else None
    probe = Schedule(started_s=run.started_s, init_s=init, first_batch_s=first, steady_s=steady, resume_step=0,
                     step_s=step_s, every=every, stall_s=prof.checkpoint_stall_s, hang_s=None,
                     early_step_s=early, change_s=run.degraded_s)
    done = probe.completed_at(0.0)
    resume = max(0, (run.start_step - done) // every * every)
    return replace(probe, resume_step=resume, hang_s=run.hang_s)


def hang_fired_s(cluster: Cluster) -> float | None:
    """When the NCCL watchdog fires for a hang (offset s), or None."""
    run = cluster.training
    if run is None or run.hang_s is None:
        return None
    return run.hang_s + NCCL_TIMEOUT_MS / 1000.0 + 0.06


def teardown_s(cluster: Cluster) -> float | None:
    """When the launcher has torn the run down after a watchdog timeout (offset s), or None."""
    fired = hang_fired_s(cluster)
    return None if fired is None else fired + TEARDOWN_S


def job_end_s(cluster: Cluster) -> float | None:
    """When the run's Slurm job ended (offset s), or None while it is pending or running."""
    run = cluster.training
    job = cluster.slurm.job(run.job_id) if run is not None else None
    if job is None or job.state in ("PENDING", "RUNNING") or job.end_s is None:
        return None
    return job.end_s


def failed_at(cluster: Cluster) -> float | None:
    """When the run's processes were gone (offset s), or None while they run.

    The launcher tears the run down once the NCCL watchdog fires for a
    stopped rank; Slurm ends the job sooner when a node fails (after
    SlurmdTimeout) or someone cancels it. Every tool that shows the ranks
    (logs, nvidia-smi, ps, py-spy) stops showing them at this instant.
    """
    ends = [t for t in (teardown_s(cluster), job_end_s(cluster)) if t is not None]
    return min(ends) if ends else None


def hung_node(cluster: Cluster) -> str:
    """The node of the rank that stopped ("" when none did)."""
    run = cluster.training
    if run is None or run.hang_rank is None or run.hang_rank >= len(run.ranks):
        return ""
    return run.ranks[run.hang_rank].node


@dataclass(frozen=True)
class Phase:
    name: str                  # allocation, initialisation, first batch, steady state, checkpoint, hang, recovery
    start_s: float
    end_s: float
    detail: str = ""


def phases(cluster: Cluster, until: float | None = None) -> list[Phase]:
    """The run's phases from its (re)start to ``until`` (default: now)."""
    run = cluster.training
    if run is None:
        return []
    now = cluster.clock.elapsed if until is None else until
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    out: list[Phase] = []
    for offset, reason in sorted(run.restarts):
        if offset < sched.started_s:
            out.append(Phase("recovery", offset, sched.started_s, reason))
    past = sorted(h for h in run.past_hangs if h[0] < sched.started_s)
    for i, (hang, rank) in enumerate(past):
        fired = hang + NCCL_TIMEOUT_MS / 1000.0 + 0.06
        begin = past[i - 1][0] + NCCL_TIMEOUT_MS / 1000.0 + TEARDOWN_S + 8.0 if i else hang - PAST_ATTEMPT_S
        until = past[i + 1][0] - PAST_ATTEMPT_S if i + 1 < len(past) else sched.started_s
        out.append(Phase("steady state", begin, hang, f"attempt {i + 1}"))
        out.append(Phase("hang", hang, fired, f"rank {rank} stopped"))
        out.append(Phase("failure", fired, fired + TEARDOWN_S, "NCCL watchdog timeout, job torn down"))
        out.append(Phase("recovery", fired + TEARDOWN_S, max(fired + TEARDOWN_S, min(until, sched.started_s)),
                         "relaunch from the latest checkpoint"))
    out.append(Phase("allocation", sched.started_s, min(now, sched.init_s), "srun, container start"))
    if now > sched.init_s:
        out.append(Phase("initialisation", sched.init_s, min(now, sched.first_batch_s),
                         f"NCCL init, load step {sched.resume_step}"))
    if now > sched.first_batch_s:
        out.append(Phase("first batch", sched.first_batch_s, min(now, sched.steady_s), "data loader warm-up"))
    end = now if sched.hang_s is None else min(now, sched.hang_s)
    cuts = [(begin, finish, f"step {step}, {'async' if run.async_checkpoint else 'sync'}")
             for step, begin, finish in sched.saves_between(sched.steady_s, end)]
    change = sched.split[1] if sched.split is not None and sched.split[1] < end else None
    cursor = sched.steady_s
    for begin, finish, detail in sorted(cuts + ([(change, change, "")] if change is not None else [])):
        if begin < cursor:
            continue
        rate = sched.rate_at(sched.completed_at(begin - 1e-6) if begin > cursor else sched.resume_step)
        out.append(Phase("steady state", cursor, begin, f"{rate:.2f} s/step"))
        if detail:
            out.append(Phase("checkpoint", begin, min(finish, end), detail))
        cursor = finish
    if end > cursor:
        out.append(Phase("steady state", cursor, end, f"{sched.rate_at(sched.completed_at(end)):.2f} s/step"))
    out.sort(key=lambda p: p.start_s)
    if sched.hang_s is not None and now > sched.hang_s:
        watchdog, down = hang_fired_s(cluster), failed_at(cluster)
        assert watchdog is not None and down is not None
        stopped = f"{hung_node(cluster)} down" if run.hang_in == "node" else f"rank {run.hang_rank} stopped"
        out.append(Phase("hang", sched.hang_s, min(now, watchdog, down), stopped))
        if now > watchdog and watchdog < down:
            out.append(Phase("failure", watchdog, min(now, down), "NCCL watchdog timeout, job torn down"))
    return [p for p in out if p.end_s > p.start_s or p.name == "allocation"]


def where(cluster: Cluster, rank: Rank, offset: float | None = None, prof: StepProfile | None = None,
          sched: Schedule | None = None) -> str:
    """What a rank's main thread is doing at ``offset`` (default now).

    One of ``data`` (waiting for the loader), ``compute``, ``collective``
    (in the all-reduce, including waiting for a late rank), ``checkpoint``
    (writing its shard), ``init``, ``hung-gpu``/``hung-io`` (the stuck rank)
    or ``done`` (not started, or gone: its node died, the job ended).
    """
    run = cluster.training
    assert run is not None
    now = cluster.clock.elapsed if offset is None else offset
    prof = prof or profile(cluster)
    sched = sched or schedule(cluster, prof)
    gone = failed_at(cluster)
    if now < sched.steady_s or (gone is not None and now >= gone):
        return "init" if sched.init_s <= now < sched.steady_s else "done"
    if sched.hang_s is not None and now >= sched.hang_s:
        if rank.rank == run.hang_rank:
            return {"io": "hung-io", "node": "done"}.get(run.hang_in, "hung-gpu")
        return "collective"
    if sched.saving_at(now) is not None and not run.async_checkpoint:
        return "checkpoint"
    mine = next((r for r in prof.ranks if r.rank == rank.rank), None)
    if mine is None:
        return "done"
    into = sched.into_step(now)
    if into < mine.data_s:
        return "data"
    if into < mine.data_s + mine.compute_s:
        return "compute"
    return "collective"


#: States in which a rank's GPU runs kernels (a collective spins an NCCL kernel while it waits).
GPU_BUSY = ("compute", "collective", "hung-gpu")


def gpu_utilization(cluster: Cluster, node: str, gpu: int, offset: float | None = None) -> int | None:
    """GPU-Util (%) over the second before ``offset`` for the rank on (node, gpu); None when no rank runs there.

    Input waits and synchronous checkpoint saves leave the GPU idle; waiting
    in an all-reduce does not (the NCCL kernel spins), so a straggler's
    peers read 100% while they wait.
    """
    run = cluster.training
    rank = next((r for r in run.ranks if r.node == node and r.gpu == gpu), None) if run else None
    if rank is None:
        return None
    now = cluster.clock.elapsed if offset is None else offset
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    samples = 20
    busy = sum(where(cluster, rank, now - i / samples, prof, sched) in GPU_BUSY for i in range(samples))
    return round(100 * busy / samples)


def worker_pids(run: TrainingRun, rank: Rank) -> list[int]:
    """PIDs of a rank's data loader worker processes (on the rank's node).

    Rank pids on a node are ``base + 7 * local_rank``; the workers of all
    ranks follow in one block from ``base + 60``, as ``ps`` lists them.
    """
    first = rank.pid + 60 - 7 * rank.local_rank + rank.local_rank * run.loader_workers
    return [first + k for k in range(max(0, run.loader_workers))]


def loader_busy(cluster: Cluster, prof: StepProfile | None = None) -> float:
    """Fraction of the time the loader workers are busy (1.0: saturated, the GPUs wait)."""
    prof = prof or profile(cluster)
    return min(1.0, prof.loader_s / max(1e-9, prof.step_s))
