"""The training run in the model: its configuration and its rank placement.

Step times are not stored: :mod:`emulator.cluster.steps` computes them from
this configuration and the hardware state, so a fault anywhere (a slow GPU, a
degraded port, a slow input pipeline) shows in the logs, in ``py-spy`` and in
``timeline`` alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Rank:
    rank: int
    node: str
    gpu: int                   # local GPU index
    local_rank: int
    pid: int


@dataclass
class SharedSpan:
    """A benchmark that ran on some of the run's GPUs beside its ranks (:mod:`emulator.cluster.sharing`).

    From ``start_s`` to ``end_s`` (offsets, s) the run's steps took ``slowdown`` times as long;
    ``gpus`` are the (node, GPU) pairs the benchmark time-sliced with the ranks, ``label`` what ran.
    """

    start_s: float
    end_s: float
    slowdown: float
    gpus: frozenset[tuple[str, int]]
    label: str


@dataclass(frozen=True)
class StartFailure:
    """The run could not start: CUDA or NCCL failed on ``node`` while the job initialised.

    ``kind`` is ``cuda`` (the CUDA runtime refused to start: ``error`` is its
    message) or ``nccl`` (NCCL's communicator init failed: ``error`` is
    ``ncclGetErrorString``, ``warning`` the last WARN). The node's ranks raised
    at ``at_s``; Slurm ended the job at ``end_s``.
    """

    node: str
    kind: str
    error: str
    warning: str
    at_s: float
    end_s: float


@dataclass
class TrainingRun:
    """A synchronous data/tensor-parallel LLM pre-training job."""

    job_id: int
    name: str
    model_name: str = "llama-8b"
    params_b: float = 8.03      # billions of parameters
    seq_len: int = 4096
    micro_batch: int = 2
    grad_accum: int = 4
    tp: int = 1
    pp: int = 1
    #: The order of the parallel dimensions over the global ranks, fastest first (Megatron's
    #: ``order``): "tp-dp" keeps a tensor-parallel group's ranks consecutive, inside a node
    #: when ranks are node-major; "dp-tp" strides it by the data-parallel size, across nodes.
    parallel_order: str = "tp-dp"
    #: How the ranks were launched: "" for one torchrun per node (ranks node-major), "cyclic" for one
    #: srun task per GPU under ``--distribution=cyclic`` (rank r on node r mod N, consecutive ranks on
    #: different nodes; the rank is SLURM_PROCID).
    distribution: str = ""
    precision: str = "bf16"
    #: Where the step loop stands: steps completed when the clock started.
    start_step: int = 12000
    #: Offset (s) from the clock's start when this run (re)started.
    started_s: float = -5400.0
    #: Phases before the first step, in seconds (allocation, init, first batch).
    alloc_s: float = 38.0
    init_s: float = 95.0
    first_batch_s: float = 41.0
    checkpoint_every: int = 500
    keep_last: int = 3               # finished saves the retention keeps; it removes older step directories
    #: Bytes saved per parameter in a full resumable checkpoint (fp32 master + Adam m, v).
    checkpoint_bytes_per_param: float = 12.0
    checkpoint_dir: str = "/lustre/ckpt/llama-8b"
    data_dir: str = "/lustre/datasets/tokens"
    #: DataLoader settings.
    loader_workers: int = 8
    prefetch_factor: int = 2
    pin_memory: bool = True
    #: CPU time (s) a worker needs to produce one micro-batch (tokenize, pack, collate).
    batch_cpu_s: float = 0.35
    #: Async (background) checkpoint saves hide the write behind steps.
    async_checkpoint: bool = True
    ranks: list[Rank] = field(default_factory=list)
    #: Restarts in this run's history: (offset s, reason), newest last.
    restarts: list[tuple[float, str]] = field(default_factory=list)
    #: Lab-provided "known-good" reference for comparison (same config, healthy fabric).
    baseline_step_s: float | None = None
    #: Input wait per step and checkpoint write time of that reference, s.
    baseline_data_s: float = 0.0
    baseline_checkpoint_s: float | None = None
    #: When the current condition began (offset s): steps before it ran at
    #: ``baseline_step_s``; None when the run has been like this since it started.
    degraded_s: float | None = None
    #: Environment the launcher sets (NCCL_DEBUG, NCCL_IB_HCA, ...), as the job script shows.
    env: dict[str, str] = field(default_factory=dict)
    #: Model shape (for tensor-parallel traffic): hidden size and layer count.
    hidden: int = 4096
    layers: int = 32
    #: Key/value heads (grouped-query attention; Llama-3-8B: 32 query heads, 8 KV heads): a
    #: tensor-parallel size must divide them.
    kv_heads: int = 8
    #: Full activation recomputation (hardware FLOPs 8N instead of 6N per token).
    activation_recompute: bool = False
    #: Steps between two lines of the training log.
    log_interval: int = 10
    #: NUMA node each rank's process and loader workers are bound to, when it is
    #: not the GPU's own (rank -> NUMA node); empty when binding is right.
    rank_numa: dict[int, int] = field(default_factory=dict)
    #: NUMA node each rank's memory is bound to (``numactl --membind``), when it is not the node
    #: its CPUs are bound to (rank -> NUMA node); empty when memory follows the CPUs.
    rank_membind: dict[int, int] = field(default_factory=dict)
    #: A hang: the rank that stopped, the offset (s) when, and where it is stuck
    #: ("gpu": a kernel that never finishes, "io": a read that never returns, "node": its host
    #: died, "crash": its process died of a CUDA error).
    hang_rank: int | None = None
    hang_s: float | None = None
    hang_in: str = ""
    #: When ``hang_in`` is ``crash`` (the rank's process died of a sticky CUDA error its NCCL
    #: watchdog raised, ending the job at once): ``cudaGetErrorString`` of that error.
    crash_error: str = ""
    #: Earlier attempts of this job that hung: (offset s when the rank stopped, that rank).
    #: The batch script relaunched after each watchdog timeout.
    past_hangs: list[tuple[float, int]] = field(default_factory=list)
    #: Checkpoints (step -> rank whose shard write failed) that were never completed.
    broken_checkpoints: dict[int, int] = field(default_factory=dict)
    #: Why that rank's write failed: "ost-full" (the OST under its shard filled up), "quota"
    #: (the project's quota ran out) or "oom" (its GPU ran out of memory staging the shard).
    checkpoint_why: str = ""
    #: The OST that filled up under that shard (``ost-full``), by index.
    full_ost: int | None = None
    #: The previous job's configuration, for a config-regression comparison
    #: (TrainingRun field name -> value); empty when nothing changed.
    previous_config: dict[str, object] = field(default_factory=dict)
    #: Slurm job id of that previous run (its log is ``train.log.1``).
    previous_job_id: int | None = None
    #: Why the run never reached its first step, when a fault present at launch stopped it.
    start_failure: StartFailure | None = None
    #: Benchmarks run beside the ranks on their GPUs, in the order they ran.
    shared: list[SharedSpan] = field(default_factory=list)

    @property
    def world_size(self) -> int:
        return len(self.ranks)

    @property
    def dp(self) -> int:
        return max(1, self.world_size // (self.tp * self.pp))

    def tp_groups(self) -> list[list[Rank]]:
        """The tensor-parallel groups, group 0 (rank 0's) first, as ``parallel_order`` lays them out:
        "tp-dp" takes consecutive ranks, "dp-tp" strides by the data-parallel size within a pipeline stage."""
        tp, dp = max(1, self.tp), self.dp
        groups: dict[tuple[int, int], list[Rank]] = {}
        for r in sorted(self.ranks, key=lambda r: r.rank):
            key = (r.rank // (dp * tp), r.rank % dp) if self.parallel_order == "dp-tp" else (r.rank // tp, 0)
            groups.setdefault(key, []).append(r)
        return [groups[key] for key in sorted(groups)]

    def groups_of_rank0(self) -> tuple[list[Rank], list[Rank]]:
        """Rank 0's tensor-parallel group and its data-parallel group, as ``parallel_order`` lays them out."""
        tp, dp, pp = max(1, self.tp), self.dp, max(1, self.pp)
        first = self.tp_groups()[0] if self.ranks else []
        if self.parallel_order == "dp-tp":
            return first, [r for r in self.ranks if r.rank < dp]
        return first, [r for r in self.ranks if r.rank % (tp * pp) == 0]

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step."""
        return self.micro_batch * self.grad_accum * self.dp

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch * self.seq_len

    def slowed(self) -> tuple[tuple[float, float, float], ...]:
        """(start, end, slowdown) of each stretch a benchmark shared the run's GPUs, on the clock."""
        return tuple((span.start_s, span.end_s, span.slowdown) for span in self.shared if span.end_s > span.start_s)

    def shared_at(self, node: str, gpu: int, offset: float) -> SharedSpan | None:
        """The benchmark sharing (node, gpu) with its rank at ``offset``, if one ran then."""
        return next((span for span in self.shared
                     if span.start_s <= offset < span.end_s and (node, gpu) in span.gpus), None)

    @property
    def nodes(self) -> list[str]:
        seen: list[str] = []
        for r in self.ranks:
            if r.node not in seen:
                seen.append(r.node)
        return seen


#: The tokenized corpus in ``data_dir``: token ids as uint32 (a 128k vocabulary outgrows uint16), in
#: shards of 2**30 tokens, written once when the corpus was prepared.
DATA_SHARDS = 256
SHARD_BYTES = 2**30 * 4
DATA_WRITTEN_S = -30 * 86_400.0


def dataset_shards() -> list[tuple[str, int]]:
    """(file name, bytes) of each shard of the training corpus."""
    return [(f"train-{i:05d}-of-{DATA_SHARDS:05d}.bin", SHARD_BYTES) for i in range(DATA_SHARDS)]

