"""Processes a user started on a compute node outside any Slurm job, and the CPU they leave the job's loader.

A user who logs in to a compute node with ssh (the site runs no
``pam_slurm_adopt``) runs outside every job's cgroup: nothing confines the
processes to CPUs Slurm gave anyone, and they keep running after the session
ends. Each process here runs ``threads`` busy threads (a tokenizer whose
thread pool takes one thread per core, started once per input file). The
kernel shares the CPUs among runnable threads alike, whoever owns them, so
when they outnumber the CPUs each DataLoader worker of the training job gets
only a share of one (:func:`cpu_share`) and takes that much longer per batch.
"""

from __future__ import annotations

from emulator.cluster.hardware import StrayLoad
from emulator.cluster.model import Cluster, Node


def strays_now(cluster: Cluster, node: Node) -> list[StrayLoad]:
    """The stray loads running on ``node`` now."""
    if not node.built:
        return []
    return [s for s in node.hw.strays if s.start_s <= cluster.clock.elapsed]


def stray_threads(cluster: Cluster, node: Node) -> int:
    """Busy threads on ``node`` that belong to no job."""
    return sum(s.runnable for s in strays_now(cluster, node))


def cpu_share(cluster: Cluster, node: Node | None) -> float:
    """The share of one CPU a runnable thread of the training job gets on ``node`` (1.0: a CPU each)."""
    if node is None:
        return 1.0
    stray = stray_threads(cluster, node)
    if not stray:
        return 1.0
    run = cluster.training
    ours = 0 if run is None else sum(1 + run.loader_workers for r in run.ranks if r.node == node.name)
    return min(1.0, node.cpu.count / (stray + ours))
