"""What a benchmark shares with the jobs already on its GPUs: their memory and their time.

A test started beside a running job (``srun --overlap`` inside its
allocation, or ``ssh`` to one of its nodes) gets no GPU of its own. Its CUDA
context and buffers must fit in what the job's processes leave free, as
``nvidia-smi`` shows it (:func:`free_mib`); nccl-tests allocates a send, a
receive and, with validation, an expected buffer of the largest size on each
GPU before NCCL starts (:func:`buffers_mib`), and ``cudaMalloc`` fails with
``out of memory`` when they do not fit.

When they fit, the two processes' contexts time-slice the GPU: without MPS
kernels from different processes do not overlap, and the GPU swaps their
scheduling resources on and off as it alternates between them (NVIDIA, "When
to Use MPS", https://docs.nvidia.com/deploy/mps/when-to-use-mps.html). A job
that keeps its GPU busy a share ``u`` of the time leaves the test ``1 - u/2``
of it, half at 100 %, and the job's own collectives run in its slices on the
same NVLink and NICs. A collective moves at its slowest rank, so the test's
share is the smallest over its GPUs (:func:`time_share`).

The job pays the same way (:func:`share_with_job`): on a GPU it shares, its
kernels get half the time, so each step's GPU work (compute and the
exposed collectives) takes twice as long, and as the job is synchronous
its slowest rank holds every other. A test across nodes also sends over the
job's NICs, and the job's exposed all-reduce gets half their bandwidth. The
stretch is kept on the run (:class:`~emulator.cluster.training.SharedSpan`),
so its log, ``timeline`` and the GPUs' samples agree on when the steps slowed
and when they recovered.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from emulator.cluster.catalog import H100
from emulator.cluster.steps import profile
from emulator.cluster.telemetry import CONTEXT_MIB, processes, sample
from emulator.cluster.timeline import failed_at
from emulator.cluster.training import SharedSpan

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster

MIB = 2**20


def buffers_mib(max_bytes: int, check: bool) -> int:
    """MiB one nccl-tests rank asks for before NCCL starts: its CUDA context and its buffers."""
    return CONTEXT_MIB + -(-max_bytes * (3 if check else 2) // MIB)


def free_mib(cluster: Cluster, node_name: str, gpu_index: int) -> int:
    """Memory left on a GPU by the processes already on it (nvidia-smi's total less its used)."""
    node = cluster.node(node_name)
    if node is None or gpu_index >= len(node.gpus):
        return 0
    gpu = node.gpus[gpu_index]
    if not processes(cluster, node, gpu):
        return H100.memory_mib - H100.reserved_mib
    return sample(cluster, node, gpu).mem_free_mib


def short_of_memory(cluster: Cluster, ranks: Sequence[tuple[str, int]], need_mib: int) -> list[tuple[str, int]]:
    """The ranks (node, GPU) whose GPU has less than ``need_mib`` free."""
    return [(node, gpu) for node, gpu in ranks if free_mib(cluster, node, gpu) < need_mib]


def time_share(cluster: Cluster, ranks: Sequence[tuple[str, int]]) -> float:
    """Share of GPU time (and so of bandwidth) a collective over ``ranks`` gets beside other processes."""
    share = 1.0
    for node_name, gpu_index in ranks:
        node = cluster.node(node_name)
        if node is None or gpu_index >= len(node.gpus):
            continue
        gpu = node.gpus[gpu_index]
        if processes(cluster, node, gpu):
            share = min(share, 1.0 - sample(cluster, node, gpu).util_pct / 200.0)
    return share


def share_with_job(cluster: Cluster, ranks: Sequence[tuple[str, int]], label: str) -> SharedSpan | None:
    """Start the stretch in which a test over ``ranks`` runs beside the training job, now; None when it
    shares neither a GPU nor, across nodes, a NIC with the job's running ranks. The caller moves its
    ``end_s`` on as the test runs."""
    run = cluster.training
    now = cluster.clock.elapsed
    gone = failed_at(cluster)
    if run is None or not run.ranks or (gone is not None and now >= gone):
        return None
    job = cluster.slurm.job(run.job_id)
    if job is None or job.state != "RUNNING":
        return None
    mine = {(r.node, r.gpu) for r in run.ranks}
    gpus = frozenset(rank for rank in ranks if rank in mine)
    nodes = {node for node, _ in ranks}
    rails = len(nodes) > 1 and len(run.nodes) > 1 and bool(nodes & set(run.nodes))
    prof = profile(cluster)
    if not (gpus or rails) or not math.isfinite(prof.step_s) or prof.step_s <= 0:
        return None
    extra = (prof.compute_s + prof.exposed_comm_s if gpus else 0.0) + (prof.exposed_comm_s if rails else 0.0)
    span = SharedSpan(start_s=now, end_s=now, slowdown=(prof.step_s + extra) / prof.step_s, gpus=gpus,
                      label=f"{label} on {len(ranks)} GPUs")
    run.shared.append(span)
    return span
