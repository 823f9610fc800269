"""A GPU fault's target and its record: which node and GPU, when, and the truth it reports.

Targets are the training job's nodes and GPUs, chosen by the seeded source
unless the lab names ``node`` and ``gpu``; the instant is the lab's ``at``
or a seeded time before the start. The truth names the GPU every way a tool
does (index, bus id, UUID, serial); kernel lines go to the node's log in
time order (:func:`log_kernel`).
"""

from __future__ import annotations

import random

from emulator.cluster.hardware import GPU, KernelEvent
from emulator.cluster.model import Cluster, Node


def pick_node(cluster: Cluster, r: random.Random, params: dict[str, object], busy: bool = True) -> Node:
    """The lab's ``node``, or a seeded compute node (one of the job's when ``busy``, else an idle one)."""
    name = str(params.get("node") or "")
    if name:
        node = cluster.node(name)
        if node is None or node.role != "compute":
            raise ValueError(f"no compute node named {name!r}")
        return node
    compute = [n.name for n in cluster.compute_nodes]
    training = cluster.training.nodes if cluster.training else []
    pool = [n for n in compute if (n in training) == busy] or compute
    return cluster.nodes[r.choice(pool)]


def pick_gpu(cluster: Cluster, r: random.Random, params: dict[str, object],
             busy: bool = True) -> tuple[Node, GPU]:
    """The node of :func:`pick_node` and the lab's ``gpu`` on it, or a seeded one."""
    node = pick_node(cluster, r, params, busy)
    index = params.get("gpu")
    if index is None or index == "":
        return node, r.choice(node.gpus)
    if not str(index).isdecimal() or int(str(index)) >= len(node.gpus):
        raise ValueError(f"{node.name} has no GPU {index}")
    return node, node.gpus[int(str(index))]


def event_at(r: random.Random, params: dict[str, object], earliest: float = 1800.0, latest: float = 300.0) -> float:
    """When the event happened: the lab's ``at`` offset, or seeded between ``earliest`` and
    ``latest`` seconds before the start."""
    at = params.get("at")
    return float(at) if isinstance(at, (int, float)) else -r.uniform(latest, earliest)


def utc_stamp(cluster: Cluster, at: float) -> str:
    """An offset as the truth's ``time``: ``2026-03-11T08:41:07Z``."""
    return cluster.clock.at(at).strftime("%Y-%m-%dT%H:%M:%SZ")


def gpu_truth(node: Node, gpu: GPU, cause: str, **extra: str) -> dict[str, str]:
    """The truth of a fault on ``gpu``: its node, index, bus id, UUID and serial, the cause, and ``extra``."""
    return {"node": node.name, "gpu": str(gpu.index), "bus_id": gpu.pci_bus_id, "uuid": gpu.uuid,
            "serial": gpu.serial, "cause": cause, **extra}


def rank_process(cluster: Cluster, node: Node, gpu: GPU) -> tuple[str, str]:
    """(pid, comm) of the rank on ``gpu``, or the driver's unknown markers."""
    if cluster.training:
        for rank in cluster.training.ranks:
            if rank.node == node.name and rank.gpu == gpu.index:
                return str(rank.pid), "python3"
    return "'<unknown>'", "<unknown>"


def log_kernel(node: Node, events: list[KernelEvent]) -> None:
    """Add kernel lines to the node's log, keeping it in time order."""
    node.hw.kernel_log.extend(events)
    node.hw.kernel_log.sort(key=lambda e: e.offset_s)
