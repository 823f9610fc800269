"""Boots and load of a host: when it booted, its boot IDs, the kernel messages of each boot, its load average."""

from __future__ import annotations

from emulator.cluster.hardware import KernelEvent
from emulator.cluster.ids import rng, uuid4_hex
from emulator.cluster.model import Cluster, Node
from emulator.cluster.strays import stray_threads


def kernel_events(cluster: Cluster, node: Node) -> list[KernelEvent]:
    """This boot's kernel messages up to now, oldest first."""
    boot = node.health.boots[-1].offset_s if node.health.boots else -3600.0
    now = cluster.clock.elapsed
    return [e for e in sorted(node.hw.kernel_log, key=lambda e: e.offset_s) if boot <= e.offset_s <= now]



def boot_offset(node: Node) -> float:
    return node.health.boots[-1].offset_s if node.health.boots else -3600.0



def journal_kernel_log(node: Node) -> list[KernelEvent]:
    """Kernel messages of every boot the journal keeps, oldest first."""
    return sorted([*node.health.earlier_kernel_log, *node.hw.kernel_log], key=lambda e: e.offset_s)



def boot_starts(cluster: Cluster, node: Node) -> list[float]:
    """When each boot the journal holds began, oldest first (the current boot last)."""
    return sorted(b.offset_s for b in node.health.boots if b.offset_s <= cluster.clock.elapsed) or [boot_offset(node)]



def boot_id(cluster: Cluster, node: Node, start: float) -> str:
    """The 128-bit boot ID of the boot that began at ``start`` (``/proc/sys/kernel/random/boot_id``)."""
    return uuid4_hex(rng(cluster.seed, node.name, 'boot-id', start))


def load_average(cluster: Cluster, node: Node) -> tuple[float, float, float]:
    """1, 5 and 15-minute load: the ranks and loader workers of the jobs on the node."""

    r = rng(cluster.seed, node.name, "load", int(cluster.clock.elapsed // 60))
    base = 0.3 if node.role == "login" else 0.05
    training = cluster.training
    for job in cluster.slurm.jobs:
        if job.state != "RUNNING" or node.name not in job.nodes:
            continue
        if training is not None and job.job_id == training.job_id:
            base += 8 * (1 + training.loader_workers * 0.9)
        elif job.gpus_per_node == 0:
            base += job.ntasks_per_node      # every task runnable or in an uninterruptible read
        else:
            base += 24.0
    base += stray_threads(cluster, node)     # busy threads outside any job, always runnable
    one, five, fifteen = (round(base * f + r.uniform(0, 0.2), 2) for f in (1.0, 0.98, 0.97))
    return one, five, fifteen
