"""``/proc/<pid>/numa_maps``: where a process's memory lives and the policy that placed it.

The launcher binds a training rank and its loader workers to one node's CPUs
and memory (as ``numactl --cpunodebind=N --membind=N`` does), so every mapping
reads ``bind:N`` and its pages sit on node N (:func:`emulator.cluster.processes.rank_binding`); other
processes keep the ``default`` policy, their pages spread over both nodes.
Lines follow ``show_numa_map`` in Linux 5.15 ``fs/proc/task_mmu.c``: start
address, policy, what is mapped, page counts, ``N<node>=`` pages per node and
``kernelpagesize_kB``. A kernel thread has no memory map: the file is empty.
``numastat -p`` sums the same areas (:func:`mappings`) per node.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.model import Cluster, Node
from emulator.cluster.processes import Proc, rank_binding

#: Page size the maps count in, KiB.
PAGE_KIB = 4


@dataclass(frozen=True)
class Mapping:
    """One area of a process's address space: what it maps, its pages and the NUMA nodes they sit on."""

    start: int
    what: str  # file=PATH, heap, stack, or "" for anonymous memory
    anon: int
    dirty: int
    total: int
    mapmax: int
    policy: str
    nodes: dict[int, int]


def mappings(cluster: Cluster, node: Node, proc: Proc) -> list[Mapping]:
    """The process's memory areas (none for a kernel thread), the one layout numa_maps and numastat read."""
    if proc.vsz_kib == 0:
        return []
    binding = rank_binding(cluster, node, proc.pid)
    policy = f"bind:{binding[1]}" if binding is not None else "default"
    exe = proc.args.split(" ", 1)[0]
    pages = max(64, proc.rss_kib // PAGE_KIB)
    text_pages, stack_pages = 1_012 if "python" in exe else 41, 33
    heap = pages // 10
    anon = max(1, pages - heap - text_pages - stack_pages)
    base = 0x55d0_0000_0000 + (proc.pid % 4096) * 0x10_0000
    areas = [
        (base, f"file={exe}", 0, 0, text_pages, 8),
        (base + 0x40_0000, "heap", heap, heap, heap, 1),
        (0x7f00_0000_0000 + (proc.pid % 256) * 0x4000_0000, "", anon, anon, anon, 1),
        (0x7ffc_0000_0000 + (proc.pid % 4096) * 0x10_0000, "stack", stack_pages, stack_pages, stack_pages, 1),
    ]
    return [Mapping(start, what, anon_pages, dirty, total, mapmax, policy, _nodes(binding, node, total))
            for start, what, anon_pages, dirty, total, mapmax in areas]


def numa_maps(cluster: Cluster, node: Node, proc: Proc) -> str:
    """The file's text for ``proc`` on ``node``."""
    return "".join(_line(m) for m in mappings(cluster, node, proc))


def _nodes(binding: tuple[int, int] | None, node: Node, total: int) -> dict[int, int]:
    """Pages per NUMA node: all on the bound node, or split over the nodes under the default policy."""
    if binding is not None or node.numa_nodes < 2:
        return {binding[1] if binding is not None else 0: total}
    first = total * 11 // 20
    return {0: first, 1: total - first}


def _line(m: Mapping) -> str:
    """One mapping, its fields in the kernel's order (each printed only when it applies)."""
    fields = [f"{m.start:x}", m.policy] + ([m.what] if m.what else [])
    fields += [f"anon={m.anon}"] if m.anon else []
    fields += [f"dirty={m.dirty}"] if m.dirty else []
    fields += [f"mapped={m.total}"] if m.total not in (m.anon, m.dirty) else []
    fields += [f"mapmax={m.mapmax}"] if m.mapmax > 1 else []
    fields += [f"N{n}={count}" for n, count in sorted(m.nodes.items()) if count]
    return " ".join(fields + [f"kernelpagesize_kB={PAGE_KIB}"]) + "\n"
