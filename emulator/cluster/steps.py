"""The step-time model of the training run: one steady-state step, rank by rank.

One synchronous step, per rank: wait for the input batch (loader workers x
CPU time per batch against the step time, storage reads and metadata
latency), compute (6·N FLOPs per token, or 8·N with activation recompute, at
a realistic kernel efficiency, lower as tensor parallelism shrinks the GEMMs, scaled by the GPU's clock), then
communicate (tensor-parallel all-reduces on the critical path, the
data-parallel gradient all-reduce mostly hidden behind backward). The
slowest rank holds everyone at the next collective, so every other rank's
difference shows as time waiting in the all-reduce.

:func:`profile` returns that breakdown, with the checkpoint cost and what
bounds the step; the loader's share (:func:`loader_batch_s`,
:func:`loader_busy`) comes from the same numbers. Where the steps fall on
the clock is :mod:`emulator.cluster.timeline`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from emulator.cluster import memo, storage
from emulator.cluster.catalog import H100
from emulator.cluster.collectives import CollectiveError, collective
from emulator.cluster.gpu_rates import gpu_speed_factor
from emulator.cluster.model import Cluster
from emulator.cluster.strays import cpu_share
from emulator.cluster.training import Rank, TrainingRun

#: Fraction of BF16 dense peak the kernels reach at a large micro-batch.
KERNEL_EFFICIENCY = 0.48
#: Soft knee of kernel efficiency in micro-batch size: eff = peak * mb / (mb + knee).
MICRO_BATCH_KNEE = 0.2
#: Kernel efficiency lost per doubling of the tensor-parallel size: each rank's GEMMs shrink by the TP
#: size (hidden/tp columns), so they fill the GPU less well and their fixed launch costs weigh more
#: (Narayanan et al., SC'21, "Efficient Large-Scale Language Model Training on GPU Clusters Using
#: Megatron-LM", sec. 3: tensor parallelism leads to smaller matrix multiplications and lower GPU
#: utilization). The 4% per doubling is this model's choice, not a measurement: tp=8 computes
#: 1/(1-0.04)^3 = 1.13x as long as tp=1, with no communication counted.
TP_EFFICIENCY_LOSS = 0.04
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
#: Share of the step the larger stall (data wait or exposed communication) must reach before it, not
#: compute, names what bounds the step.
BOUND_SHARE = 0.15
#: Copy of one rank's checkpoint state to host memory before an async save, GB/s.
SNAPSHOT_GBPS = 20.0


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
    sharded = (1.0 - TP_EFFICIENCY_LOSS) ** math.log2(max(1, run.tp))
    return KERNEL_EFFICIENCY * mb / (mb + MICRO_BATCH_KNEE) * sharded


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
    """Whether the rank's process, or the memory it allocates, sits on another NUMA node than its GPU:
    either way its staging buffers and the loader's batches cross the socket link on every copy."""
    if rank.rank not in run.rank_numa and rank.rank not in run.rank_membind:
        return False
    node = cluster.node(rank.node)
    if node is None or rank.gpu >= len(node.gpus):
        return False
    own = node.gpus[rank.gpu].numa_node
    cpus = run.rank_numa.get(rank.rank, own)
    return cpus != own or run.rank_membind.get(rank.rank, cpus) != own


def loader_io_s(cluster: Cluster, run: TrainingRun) -> float:
    """Seconds a loader worker spends on storage reads and opens for one micro-batch."""
    fs = cluster.storage
    miss = 1.0 - fs.client_cache_hit
    io = run.micro_batch * READS_PER_SAMPLE * miss * storage.read_latency_ms(fs) / 1000.0
    return io + OPENS_PER_BATCH * storage.metadata_latency_ms(fs) / 1000.0


def loader_batch_s(cluster: Cluster, run: TrainingRun, rank: Rank | None = None) -> float:
    """Seconds one loader worker needs to produce one micro-batch (CPU work plus reads); CPU work takes
    longer on a socket away from the GPU, and when threads outside the job crowd its node's CPUs."""
    io = loader_io_s(cluster, run)
    cpu = run.batch_cpu_s
    if rank is not None and _misbound(cluster, run, rank):
        cpu *= NUMA_LOADER_PENALTY
    if rank is not None:
        cpu /= cpu_share(cluster, cluster.node(rank.node))
    return cpu + io


def _collective_s(cluster: Cluster, run: TrainingRun, op: str, size: float, group: list[Rank]) -> tuple[float, str]:
    if len(group) <= 1 or size <= 0:
        return 0.0, "local"
    try:
        result = collective(cluster, op, int(size), [(r.node, r.gpu) for r in group], run.env, sample="training")
    except CollectiveError:
        return math.inf, "unavailable"
    return result.time_us / 1e6, result.transport


def profile(cluster: Cluster) -> StepProfile:
    """The steady-state step of ``cluster.training`` under the current state (kept for the rest of a
    command that changes nothing: :mod:`emulator.cluster.memo`)."""
    run = cluster.training
    if run is None or not run.ranks:
        raise ValueError("no training run in this cluster")
    return memo.kept("steps.profile", (cluster, run), None, lambda: _profile(cluster, run))


def _profile(cluster: Cluster, run: TrainingRun) -> StepProfile:
    computes = {r.rank: _compute_s(cluster, run, r) for r in run.ranks}
    slowest_compute = max(computes.values())
    backward = slowest_compute * (0.75 if run.activation_recompute else 2.0 / 3.0)

    tp_group, dp_group = run.groups_of_rank0()
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
    # The slowest rank's step is the critical path: its data wait and the exposed communication are
    # what the step spends off the GPU's compute; the larger of the two names the bound once it
    # takes BOUND_SHARE of the step.
    stalls = {"input": datas[late], "communication": exposed}
    larger = max(stalls, key=lambda k: stalls[k])
    bound = larger if 0 < step_s < math.inf and stalls[larger] >= BOUND_SHARE * step_s else "compute"
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


def worker_pids(run: TrainingRun, rank: Rank) -> list[int]:
    """PIDs of a rank's data loader worker processes (on the rank's node).

    Rank pids on a node are ``base + 7 * local_rank``; the workers of all
    ranks follow in one block from ``base + 60``, as ``ps`` lists them.
    """
    first = rank.pid + 60 - 7 * rank.local_rank + rank.local_rank * run.loader_workers
    return [first + k for k in range(max(0, run.loader_workers))]


#: TIDs of a training rank's named threads, as offsets from its pid (py-spy dump prints them).
PIN_MEMORY_THREAD = 193
CHECKPOINT_WRITER_THREAD = 411


def rank_ids(cluster: Cluster, node: str, pid: int) -> set[int]:
    """The ids a process of the training job holds on ``node``: its pid, its named threads' TIDs and the pids
    of its loader workers (just ``{pid}`` for a process that is no rank of the job)."""
    run = cluster.training
    rank = next((rk for rk in run.ranks if rk.node == node and rk.pid == pid), None) if run is not None else None
    if run is None or rank is None:
        return {pid}
    return {pid, pid + PIN_MEMORY_THREAD, pid + CHECKPOINT_WRITER_THREAD, *worker_pids(run, rank)}


def loader_busy(cluster: Cluster, prof: StepProfile | None = None) -> float:
    """Fraction of the time the loader workers are busy (1.0: saturated, the GPUs wait)."""
    prof = prof or profile(cluster)
    return min(1.0, prof.loader_s / max(1e-9, prof.step_s))
