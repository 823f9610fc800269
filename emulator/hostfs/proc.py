"""A host's ``/proc``: cpuinfo, meminfo, uptime, loadavg, version, cmdline, the NVIDIA driver version.

Each file is rendered when read from the node's hardware and load, and looks
just written (as real ``/proc`` files do). The per-process directories and
the boot id are :mod:`emulator.hostfs.procfs`, which holds the directory.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.cluster.boots import load_average
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster, Node
from emulator.cluster.processes import memory
from emulator.hostfs import procfs
from emulator.hostfs.tree import live_file, tree
from emulator.vfs import Dir


def proc_dir(cluster: Cluster, node: Node) -> Dir:
    """The node's ``/proc``: its host-wide files and, through :class:`procfs.ProcDir`, one directory per process."""
    v = cluster.versions

    def now() -> float:
        return cluster.clock.elapsed

    files = {
        "cpuinfo": live_file(_once(lambda: _cpuinfo(node)), now=now),
        "meminfo": live_file(lambda: _meminfo(cluster, node), now=now),
        "uptime": live_file(lambda: _uptime(cluster, node), now=now),
        "loadavg": live_file(lambda: _loadavg(cluster, node), now=now),
        "version": live_file(lambda: f"Linux version {v.kernel} (buildd@lcy02-amd64-047) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                                     f"11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) {v.kernel_build}\n", now=now),
        "cmdline": live_file(lambda: f"BOOT_IMAGE=/boot/vmlinuz-{v.kernel} root=UUID=5e6f1c52-3b1c-4a57-9a83-"
                                     "0c1d2e3f4a5b ro pci=realloc=off iommu=pt\n", now=now),
    }
    if node.role == "compute":
        files["driver/nvidia/version"] = live_file(lambda: _nvidia_version(cluster), now=now)
    files["sys/kernel/random/boot_id"] = procfs.boot_id_file(cluster, node)
    return procfs.ProcDir(cluster, node, tree(files).children)


def _once(render: Callable[[], str]) -> Callable[[], str]:
    """A renderer for text that never changes, computed on first read only."""
    cache: list[str] = []

    def text() -> str:
        if not cache:
            cache.append(render())
        return cache[0]

    return text


def _cpuinfo(node: Node) -> str:
    cpu = node.cpu
    cores = cpu.cores_per_socket
    threads = cpu.sockets * cores * cpu.threads_per_core
    blocks = []
    for n in range(threads):
        socket = (n // cores) % cpu.sockets
        core = n % cores
        blocks.append(
            f"processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
            f"model name\t: {cpu.model}\nstepping\t: 8\nmicrocode\t: 0x2b000590\ncpu MHz\t\t: 2000.000\n"
            f"cache size\t: 107520 KB\nphysical id\t: {socket}\nsiblings\t: {cores * cpu.threads_per_core}\n"
            f"core id\t\t: {core}\ncpu cores\t: {cores}\napicid\t\t: {n * 2 % 256}\n"
            "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 32\nwp\t\t: yes\n"
            "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
            "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc avx avx2 avx512f avx512bw "
            "amx_bf16 amx_tile amx_int8\n"
            "bogomips\t: 4000.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
            "address sizes\t: 46 bits physical, 57 bits virtual\npower management:\n")
    return "\n".join(blocks) + "\n"


def _meminfo(cluster: Cluster, node: Node) -> str:
    """``/proc/meminfo`` from :func:`emulator.cluster.processes.memory`, the figures free, top and vmstat print.

    procps reads this file: free's ``buff/cache`` is Buffers + Cached + SReclaimable, its ``used`` is
    MemTotal - MemFree - Buffers - Cached - SReclaimable, ``available`` is MemAvailable and ``shared``
    is Shmem (procps-ng proc/sysinfo.c, meminfo()), so the rows below are split to give those sums back.
    """
    m = memory(cluster, node)
    r = rng(cluster.seed, node.name, "meminfo", int(cluster.clock.elapsed // 10))
    reclaimable = m.cached // 40            # dentries and inodes: part of free's cache column
    unreclaimable = int(m.total * 0.002)
    page_tables = int(m.total * 0.001)
    anon = max(0, m.used - unreclaimable - page_tables)
    cached = m.cached - reclaimable
    rows = [("MemTotal", m.total), ("MemFree", m.free), ("MemAvailable", m.available),
            ("Buffers", m.buffers), ("Cached", cached), ("SwapCached", 0),
            ("Active", anon + cached // 3), ("Inactive", cached - cached // 3 + m.buffers),
            ("SwapTotal", 0), ("SwapFree", 0), ("Dirty", r.randint(100, 4000)), ("Writeback", 0),
            ("AnonPages", anon), ("Mapped", min(cached, m.shared + int(m.total * 0.004))),
            ("Shmem", m.shared), ("KReclaimable", reclaimable), ("Slab", reclaimable + unreclaimable),
            ("SReclaimable", reclaimable), ("SUnreclaim", unreclaimable),
            ("PageTables", page_tables), ("HugePages_Total", 0), ("HugePages_Free", 0),
            ("Hugepagesize", 2048)]
    out = []
    for name, value in rows:
        unit = "" if name.startswith("HugePages_") else " kB"
        out.append(f"{name + ':':<16}{value:>8}{unit}")
    return "\n".join(out) + "\n"


def _uptime(cluster: Cluster, node: Node) -> str:
    boot = node.health.boots[-1].offset_s if node.health.boots else -86_400.0
    up = cluster.clock.elapsed - boot
    threads = node.cpu.sockets * node.cpu.cores_per_socket * node.cpu.threads_per_core
    idle = up * threads * (0.45 if any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
                           else 0.99)
    return f"{up:.2f} {idle:.2f}\n"


def _loadavg(cluster: Cluster, node: Node) -> str:
    one, five, fifteen = load_average(cluster, node)
    running = max(1, int(one))
    return f"{one:.2f} {five:.2f} {fifteen:.2f} {running}/{1800 + int(one) * 12} {48_213 + int(cluster.clock.elapsed)}\n"


def _nvidia_version(cluster: Cluster) -> str:
    v = cluster.versions
    return (f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {v.driver}  Fri May 24 00:09:27 UTC 2024\n"
            "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n")
