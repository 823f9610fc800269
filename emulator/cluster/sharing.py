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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from emulator.cluster.catalog import H100
from emulator.cluster.telemetry import CONTEXT_MIB, processes, sample

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
