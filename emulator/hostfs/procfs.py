"""``/proc/<pid>``: one directory per process of the host's process table.

The table is :func:`emulator.cluster.processes.processes`, the one ``ps``,
``top``, ``pgrep`` and ``taskset`` read, so a PID listed by any of them has a
directory here with the same name, state, parent, owner, memory, threads and
CPU affinity (and ``numa_maps``, :mod:`emulator.hostfs.numamaps`, the NUMA
node its memory is bound to, and ``environ``, :mod:`emulator.cluster.environ`, the variables
it started with: a rank's ``RANK``, ``LOCAL_RANK`` and ``CUDA_VISIBLE_DEVICES``). The directories are listed afresh at each lookup: a rank that
exits disappears from ``/proc`` as it does from ``ps``.

``/proc/sys/kernel/random/boot_id`` is the boot ID ``journalctl --list-boots``
names for the current boot, as a dashed UUID.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.cluster.accounts import groups_of, uid_of
from emulator.cluster.boots import boot_id, boot_starts
from emulator.cluster.environ import environ
from emulator.cluster.model import Cluster, Node
from emulator.cluster.processes import Proc, affinity, processes
from emulator.hostfs.numamaps import numa_maps
from emulator.vfs import Dir, File

#: ``ps`` state letter → the word ``/proc/<pid>/status`` spells out.
STATES = {"R": "R (running)", "S": "S (sleeping)", "D": "D (disk sleep)", "I": "I (idle)", "T": "T (stopped)",
          "Z": "Z (zombie)"}


class ProcDir(Dir):
    """``/proc``: fixed files plus a numbered directory per live process, listed at each lookup."""

    def __init__(self, cluster: Cluster, node: Node, fixed: dict[str, File | Dir]) -> None:
        super().__init__(dict(fixed))
        self._cluster = cluster
        self._node = node
        self._fixed = fixed

    def entries(self) -> dict[str, File | Dir]:
        procs = processes(self._cluster, self._node)
        self.children = {**self._fixed, **{str(p.pid): _pid_dir(self._cluster, self._node, p) for p in procs}}
        return self.children


def _pid_dir(cluster: Cluster, node: Node, proc: Proc) -> Dir:
    owner = "root" if proc.user.endswith("+") else proc.user

    def live(render: Callable[[], str]) -> File:
        return File(render, mode=0o444, owner=owner, group=owner, fixed_size=0,
                    live_mtime=lambda: cluster.clock.elapsed)

    kernel_thread = proc.vsz_kib == 0
    return Dir({
        "status": live(lambda: status(cluster, node, proc)),
        "comm": live(lambda: f"{proc.comm[:15]}\n"),
        # Arguments are NUL-separated; a kernel thread has none.
        "cmdline": live(lambda: "" if kernel_thread else proc.args.replace(" ", "\0") + "\0"),
        # The symbol the task sleeps in, without a newline; "0" while it runs (fs/proc/base.c, proc_pid_wchan).
        "wchan": live(lambda: "0" if proc.wchan == "-" else proc.wchan),
        "numa_maps": live(lambda: numa_maps(cluster, node, proc)),
        # NUL-terminated NAME=value strings, readable by the owner and root only (fs/proc/base.c, S_IRUSR).
        "environ": File(lambda: "".join(f"{k}={v}\0" for k, v in environ(cluster, node, proc)), mode=0o400,
                        owner=owner, group=owner, fixed_size=0, live_mtime=lambda: cluster.clock.elapsed),
    }, mode=0o555, owner=owner, group=owner, mtime=proc.start_s)


def status(cluster: Cluster, node: Node, proc: Proc) -> str:
    """``/proc/<pid>/status`` as Linux 5.15 prints it (memory lines only for user processes)."""
    uid = uid_of(proc.user)
    cpus = affinity(cluster, node, proc.pid) or f"0-{node.cpu.count - 1}"
    numa = node.numa_nodes
    lines = [("Name", proc.comm[:15]), ("Umask", "0022"), ("State", STATES.get(proc.state[0], proc.state[0])),
             ("Tgid", proc.pid), ("Ngid", 0), ("Pid", proc.pid), ("PPid", proc.ppid), ("TracerPid", 0),
             ("Uid", "\t".join([str(uid)] * 4)), ("Gid", "\t".join([str(uid)] * 4)),
             ("FDSize", 256 if proc.vsz_kib else 64), ("Groups", _groups_field(proc.user)),
             ("NStgid", proc.pid), ("NSpid", proc.pid), ("NSpgid", proc.pid), ("NSsid", proc.pid)]
    if proc.vsz_kib:
        anon = int(proc.rss_kib * 0.9)
        lines += [(name, f"{kib:>8} kB") for name, kib in (
            ("VmPeak", proc.vsz_kib + 2048), ("VmSize", proc.vsz_kib), ("VmLck", 0), ("VmPin", 0),
            ("VmHWM", proc.rss_kib + 512), ("VmRSS", proc.rss_kib), ("RssAnon", anon),
            ("RssFile", proc.rss_kib - anon - min(proc.shr_kib, proc.rss_kib - anon)),
            ("RssShmem", min(proc.shr_kib, proc.rss_kib - anon)), ("VmData", int(proc.vsz_kib * 0.6)),
            ("VmStk", 132), ("VmExe", 2_792 if "python" in proc.args else 164), ("VmLib", 21_304),
            ("VmPTE", max(4, proc.rss_kib // 500)), ("VmSwap", 0), ("HugetlbPages", 0))]
    lines += [("CoreDumping", 0), ("THP_enabled", 1), ("Threads", proc.threads),
              ("SigQ", f"0/{node.memory_kib // 1024 // 4}"), ("SigPnd", "0" * 16), ("ShdPnd", "0" * 16),
              ("SigBlk", "0" * 16), ("SigIgn", "0000000001001000" if proc.vsz_kib else "ffffffffffffffff"),
              ("SigCgt", "0000000180004a02" if proc.vsz_kib else "0" * 16),
              ("CapInh", "0" * 16), ("CapPrm", "000001ffffffffff" if uid == 0 else "0" * 16),
              ("CapEff", "000001ffffffffff" if uid == 0 else "0" * 16), ("CapBnd", "000001ffffffffff"),
              ("CapAmb", "0" * 16), ("NoNewPrivs", 0), ("Seccomp", 0), ("Seccomp_filters", 0),
              ("Speculation_Store_Bypass", "thread vulnerable"),
              ("SpeculationIndirectBranch", "conditional enabled"),
              ("Cpus_allowed", cpu_mask(cpus, node.cpu.count)), ("Cpus_allowed_list", cpus),
              ("Mems_allowed", ",".join(["00000000"] * 31 + [f"{(1 << numa) - 1:08x}"])),
              ("Mems_allowed_list", f"0-{numa - 1}" if numa > 1 else "0"),
              ("voluntary_ctxt_switches", _switches(cluster, proc, 41)),
              ("nonvoluntary_ctxt_switches", _switches(cluster, proc, 3))]
    return "".join(f"{name}:\t{value}\n" for name, value in lines)


def _switches(cluster: Cluster, proc: Proc, per_s: int) -> int:
    """Context switches so far: a steady rate over the process's life."""
    return int(max(0.0, cluster.clock.elapsed - proc.start_s) * per_s * (1 + proc.cpu_pct / 100))


def cpu_mask(cpus: str, count: int) -> str:
    """``0-55,112-167`` as the kernel's hex bitmap, 32-bit words comma-separated, widest first."""
    bits = 0
    for part in cpus.split(","):
        lo, _, hi = part.partition("-")
        for cpu in range(int(lo), int(hi or lo) + 1):
            bits |= 1 << cpu
    words = max(1, (count + 31) // 32)
    text = f"{bits:0{words * 8}x}"
    return ",".join(text[i:i + 8] for i in range(0, len(text), 8))


def boot_id_file(cluster: Cluster, node: Node) -> File:
    """``/proc/sys/kernel/random/boot_id``: the current boot's ID, stable until the host reboots."""
    def render() -> str:
        raw = boot_id(cluster, node, boot_starts(cluster, node)[-1])
        return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}\n"

    return File(render, mode=0o444, fixed_size=0, live_mtime=lambda: cluster.clock.elapsed)


def _groups_field(user: str) -> str:
    """The status file's ``Groups:`` value: every gid but root's, ascending, each followed by a space."""
    return "".join(f"{gid} " for gid in sorted(gid for gid, _ in groups_of(user) if gid))
