"""Host tools of an Ubuntu 22.04 node: PCI devices, CPUs and NUMA, memory,
processes, filesystems and block I/O, and the Lustre client's view.

Everything renders from the cluster model: the node's GPUs, NICs, PCIe
switches and disks (``lspci``), its CPU and memory (``lscpu``, ``numactl``,
``free``), the training run's ranks and loader workers (``ps``, ``top``), the
parallel filesystem's targets (``df``, ``lfs df``) and seeded, modest block
I/O load (``iostat``, ``vmstat``). The memory and process views come from
:func:`memory` and :func:`processes`, so ``free``, ``top``, ``vmstat`` and
``numactl`` agree.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Generator
from dataclasses import dataclass

from ..cluster import steps
from ..cluster.ids import rng
from ..cluster.model import Cluster, Node
from ..cluster.scheduler import Job
from ..shell.hostfs import load_average
from .base import ArgumentParser, Command, Context, Outcome
from .builtins import boot_offset
from .fabric import getopt_error
from .system import EXEC

SECTION = "Host"

# -- memory ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Memory:
    """A host's memory in KiB, as /proc/meminfo would report it now."""

    total: int
    used: int
    free: int
    shared: int
    buffers: int
    cached: int

    @property
    def buff_cache(self) -> int:
        return self.buffers + self.cached

    @property
    def available(self) -> int:
        return self.free + int(self.cached * 0.92) + self.buffers


def memory(ctx: Context, node: Node, procs: list[Proc] | None = None) -> Memory:
    """The host's memory now; ``procs`` is :func:`processes` when the caller has it already."""
    total = node.memory_kib
    r = rng(ctx.cluster.seed, node.name, "meminfo")
    procs = processes(ctx, node) if procs is None else procs
    used = 5_800_000 + sum(p.rss_kib for p in procs if p.user != "root" or p.pid < 100) + r.randrange(200_000)
    training = any(p.comm == "pt_main_thread" for p in procs)
    shared = (14_600_000 if training else 60_000) + r.randrange(50_000)
    cached = (total // 5 if node.role == "compute" else total // 12) + r.randrange(10**7)
    buffers = 1_800_000 + r.randrange(400_000)
    free = max(0, total - used - cached - buffers)
    return Memory(total, used, free, shared, buffers, cached)


# -- processes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    user: str
    comm: str
    args: str
    cpu_pct: float
    rss_kib: int
    vsz_kib: int
    shr_kib: int
    state: str
    start_s: float             # offset from the clock's start
    threads: int = 1
    tty: str = "?"
    nice: int = 0
    #: CPU seconds used before the current %CPU began (a rank that ran, then hung).
    cpu_before_s: float = 0.0
    #: When the current %CPU began (None: since the start).
    rate_since_s: float | None = None

    def cpu_time_s(self, now: float) -> float:
        since = self.start_s if self.rate_since_s is None else self.rate_since_s
        return self.cpu_before_s + max(0.0, now - since) * self.cpu_pct / 100.0


def _running_jobs(cluster: Cluster, node: Node) -> list[Job]:
    return [j for j in cluster.slurm.jobs if j.state == "RUNNING" and node.name in j.nodes]


def processes(ctx: Context, node: Node) -> list[Proc]:
    """The host's processes now: system daemons, services, and the jobs' workers."""
    cl = ctx.cluster
    boot = boot_offset(node)
    r = rng(cl.seed, node.name, "procs")
    procs = [
        Proc(1, 0, "root", "systemd", "/sbin/init", 0.0, 13_140, 168_084, 8_400, "Ss", boot),
        Proc(2, 0, "root", "kthreadd", "[kthreadd]", 0.0, 0, 0, 0, "S", boot),
        Proc(3, 2, "root", "rcu_gp", "[rcu_gp]", 0.0, 0, 0, 0, "I<", boot),
        Proc(r.randint(900, 990), 1, "root", "systemd-journal", "/lib/systemd/systemd-journald", 0.0,
             r.randint(90_000, 160_000), 199_120, 80_000, "Ss", boot + 3.0),
        Proc(r.randint(1000, 1090), 1, "systemd+", "systemd-resolve", "/lib/systemd/systemd-resolved", 0.0,
             13_900, 25_532, 8_700, "Ss", boot + 4.0),
    ]
    for service in node.hw.services.values():
        if not service.active or not service.main_pid:
            continue
        binary, cmdline = EXEC.get(service.name, (service.name, f"/usr/sbin/{service.name}"))[:2]
        user = "nvidia-+" if service.name == "nvidia-persistenced" else "root"
        cpu = 0.3 if service.name == "nvidia-dcgm" else 0.0
        procs.append(Proc(service.main_pid, 1, user, binary[:15], cmdline, cpu, r.randint(8_000, 60_000),
                          r.randint(80_000, 900_000), 6_000, "Ssl" if service.name != "ssh" else "Ss",
                          max(boot, service.since_s)))
    run = cl.training
    for job in _running_jobs(cl, node):
        start = job.start_s if job.start_s is not None else 0.0
        if run is not None and job.job_id == run.job_id:
            procs += _training_procs(ctx, node, start)
        else:
            base = rng(cl.seed, node.name, "job", job.job_id).randint(100_000, 170_000)
            procs.append(Proc(base - 4, 1, "root", "slurmstepd", f"slurmstepd: [{job.job_id}.0]", 0.0, 9_000,
                              330_000, 7_000, "Sl", start))
            for g in range(job.gpus_per_node):
                procs.append(Proc(base + g * 5, base - 4, job.user, "python3", f"python3 {job.command or 'run.py'}",
                                  round(98.0 + rng(cl.seed, node.name, "p", g).uniform(0, 4), 1), 18_000_000,
                                  96_000_000, 1_300_000, "Rl", start + 40.0, threads=64))
    return sorted(procs, key=lambda p: p.pid)


def _training_procs(ctx: Context, node: Node, start: float) -> list[Proc]:
    """torchrun, its eight ranks and their DataLoader workers on one node."""
    cl = ctx.cluster
    run = cl.training
    assert run is not None
    ranks = [rk for rk in run.ranks if rk.node == node.name]
    if not ranks:
        return []
    n_i = run.nodes.index(node.name)
    pid0 = min(rk.pid for rk in ranks)
    agent = pid0 - 31 - n_i    # the torchrun agent pid the job log names
    started = run.started_s + run.alloc_s
    args = (f"/usr/bin/python3 -u train.py --config /home/alice/jobs/configs/{run.model_name}.yaml")
    torchrun = (f"/usr/bin/python3 /usr/local/bin/torchrun --nnodes={len(run.nodes)} --nproc-per-node=8 "
                f"--rdzv-id={run.job_id} --rdzv-backend=c10d --rdzv-endpoint={run.nodes[0]}:29500 train.py "
                f"--config /home/alice/jobs/configs/{run.model_name}.yaml")
    procs = [
        Proc(agent - 6, 1, "root", "slurmstepd", f"slurmstepd: [{run.job_id}.0]", 0.0, 9_240, 331_460, 7_300, "Sl",
             run.started_s),
        Proc(agent, agent - 6, "alice", "torchrun", torchrun, 0.4, 412_000, 2_964_000, 160_000, "Sl", run.started_s + 2),
    ]
    try:
        prof = steps.profile(cl)
        step_s, hang_s = prof.step_s, steps.schedule(cl, prof).hang_s
    except (ValueError, ZeroDivisionError):
        step_s, hang_s = math.inf, None
    hung = hang_s is not None and cl.clock.elapsed >= hang_s
    per_worker = run.grad_accum / max(1, run.loader_workers) * run.batch_cpu_s
    worker_pct = min(99.7, 100.0 * per_worker / step_s) if math.isfinite(step_s) and step_s > 0 else 0.0
    if hung:
        worker_pct = 0.0   # no step completes: the loaders' queues are full
    for rank in ranks:
        j = rng(cl.seed, node.name, "rank", rank.rank)
        # Ranks busy-poll in NCCL even while they wait; a rank stuck in I/O sleeps in the kernel.
        state, pct = "Rl", round(101.0 + j.uniform(0, 9), 1)
        before, since = 0.0, None
        if hung and hang_s is not None and rank.rank == run.hang_rank and run.hang_in == "io":
            before, since = max(0.0, hang_s - started) * pct / 100.0, hang_s
            state, pct = "Dl", 0.3
        procs.append(Proc(rank.pid, agent, "alice", "pt_main_thread", args, pct,
                          21_400_000 + j.randrange(2_000_000), 186_000_000 + j.randrange(4_000_000),
                          2_100_000 + j.randrange(300_000), state, started, threads=97, cpu_before_s=before,
                          rate_since_s=since))
        for k in range(run.loader_workers):
            w = rng(cl.seed, node.name, "worker", rank.rank, k)
            pct = round(max(0.0, worker_pct * w.uniform(0.9, 1.1)), 1)
            procs.append(Proc(rank.pid + 60 + rank.local_rank * run.loader_workers + k - rank.local_rank * 7,
                              rank.pid, "alice", "pt_data_worker", args, min(99.9, pct),
                              3_100_000 + w.randrange(400_000), 160_000_000 + w.randrange(2_000_000),
                              1_900_000 + w.randrange(200_000), "R" if pct > 80 else "S", started + 90.0,
                              threads=9))
    return procs


def worker_pid(rank_pid: int, local_rank: int, workers: int, k: int) -> int:
    """PID of DataLoader worker ``k`` of the rank with ``rank_pid`` (same formula as :func:`processes`)."""
    return rank_pid + 60 + local_rank * workers + k - local_rank * 7


# -- lspci ---------------------------------------------------------------------------------

#: (class name, class code, vendor name, vendor id, device name, device id, revision)
PCI_IDS = {
    "gpu": ("3D controller", "0302", "NVIDIA Corporation", "10de", "GH100 [H100 SXM5 80GB]", "2330", "a1"),
    "ib": ("Infiniband controller", "0207", "Mellanox Technologies", "15b3", "MT2910 Family [ConnectX-7]", "1021", ""),
    "eth": ("Ethernet controller", "0200", "Mellanox Technologies", "15b3", "MT2910 Family [ConnectX-7]", "1021", ""),
    "switch": ("PCI bridge", "0604", "Broadcom / LSI", "1000", "PEX890xx PCIe Gen 5 Switch", "c030", "b0"),
    "nvswitch": ("Bridge", "0680", "NVIDIA Corporation", "10de", "Device", "22a3", "a1"),
    "nvme": ("Non-Volatile memory controller", "0108", "Samsung Electronics Co Ltd",
             "144d", "NVMe SSD Controller PM9A1/PM9A3/980PRO", "a80a", ""),
    "host": ("Host bridge", "0600", "Intel Corporation", "8086", "Device", "09a2", "20"),
    "vga": ("VGA compatible controller", "0300", "ASPEED Technology, Inc.", "1a03", "ASPEED Graphics Family",
            "2000", "52"),
    "e810": ("Ethernet controller", "0200", "Intel Corporation", "8086", "Ethernet Controller E810-C for QSFP",
             "1592", "02"),
}
GEN_GTS = {1: "2.5GT/s", 2: "5GT/s", 3: "8GT/s", 4: "16GT/s", 5: "32GT/s"}
NVME_BUSES = (0x01, 0x02, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0xE1, 0xE2)


@dataclass(frozen=True)
class PciDev:
    bus: str                   # "1b:00.0"
    kind: str
    numa: int
    driver: str
    gen: int = 5
    width: int = 16
    gen_max: int = 5
    width_max: int = 16


def pci_devices(node: Node) -> list[PciDev]:
    devs = [PciDev("00:00.0", "host", 0, ""), PciDev("03:00.0", "vga", 0, "ast", 1, 1, 1, 1)]
    if node.role == "login":
        devs.append(PciDev("8a:00.0", "e810", 1, "ice", 4, 16, 4, 16))
        for nic in node.nics:
            devs.append(PciDev(nic.pci_bus_id[5:].lower(), "eth", nic.numa_node, "mlx5_core"))
        for i in range(len(node.hw.disks)):
            devs.append(PciDev(f"{NVME_BUSES[i]:02x}:00.0", "nvme", 0, "nvme", 4, 4, 4, 4))
        return sorted(devs, key=lambda d: d.bus)
    for sw in node.hw.pcie_switches:
        bus = int(sw.bus[5:7], 16)
        devs.append(PciDev(f"{bus:02x}:00.0", "switch", sw.numa_node, "pcieport"))
        devs.append(PciDev(f"{bus + 1:02x}:00.0", "switch", sw.numa_node, "pcieport"))
        devs.append(PciDev(f"{bus + 1:02x}:01.0", "switch", sw.numa_node, "pcieport"))
    for k in range(node.hw.nvswitches):
        devs.append(PciDev(f"{0x05 + k:02x}:00.0", "nvswitch", 0, "", 4, 2, 4, 2))
    for gpu in node.gpus:
        if gpu.present:
            devs.append(PciDev(gpu.pci_bus_id[9:].lower(), "gpu", gpu.numa_node, "nvidia", gpu.pcie_gen_current,
                               gpu.pcie_width_current, gpu.pcie_gen_max, gpu.pcie_width_max))
    for nic in node.nics:
        devs.append(PciDev(nic.pci_bus_id[5:].lower(), "ib" if nic.link_layer == "InfiniBand" else "eth",
                           nic.numa_node, "mlx5_core"))
    for i, disk in enumerate(node.hw.disks):
        devs.append(PciDev(f"{NVME_BUSES[i]:02x}:00.0", "nvme", disk.numa_node, "nvme", 4, 4, 4, 4))
    devs.append(PciDev("8a:00.0", "e810", 1, "ice", 4, 16, 4, 16))
    return sorted(devs, key=lambda d: d.bus)


class Lspci(Command):
    name = "lspci"
    summary = "list all PCI devices"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-s", metavar="[[[[<domain>]:]<bus>]:][<slot>][.[<func>]]",
                            help="show only devices in selected slots")
        parser.add_argument("-d", metavar="[<vendor>]:[<device>]", help="show only devices with specified ID's")
        parser.add_argument("-v", action="count", default=0, help="be verbose (-vv for very verbose)")
        parser.add_argument("-n", action="count", default=0, help="show numeric ID's (-nn for both)")
        parser.add_argument("-k", action="store_true", help="show kernel drivers handling each device")
        parser.add_argument("-D", action="store_true", help="always show domain numbers")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\nUsage: lspci [<switches>]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        devs = pci_devices(ctx.host)
        if args.s:
            want = args.s.lower()
            if not all(c in "0123456789abcdef:." for c in want) or want.count(":") > 2:
                raise ctx.fail("lspci: -s: Invalid slot number", 1)
            devs = [d for d in devs if self._slot_match(d.bus, want)]
        if args.d:
            vendor, _, device = args.d.lower().partition(":")
            devs = [d for d in devs if (not vendor or PCI_IDS[d.kind][3] == vendor)
                    and (not device or PCI_IDS[d.kind][5] == device)]
        for i, d in enumerate(devs):
            if args.v and i:
                ctx.outln()
            cls, code, vname, vid, dname, did, rev = PCI_IDS[d.kind]
            bus = f"0000:{d.bus}" if args.D else d.bus
            revtxt = f" (rev {rev})" if rev else ""
            if args.n >= 2:
                line = f"{bus} {cls} [{code}]: {vname} {dname} [{vid}:{did}]{revtxt}"
            elif args.n == 1:
                line = f"{bus} {code}: {vid}:{did}{revtxt}"
            else:
                shown = dname if dname != "Device" else f"Device {did}"
                line = f"{bus} {cls}: {vname} {shown}{revtxt}"
            ctx.outln(line)
            if args.v:
                self._verbose(ctx, d, args.v)
            elif args.k and d.driver:
                ctx.outln(f"\tKernel driver in use: {d.driver}")
        if args.v and devs:
            ctx.outln()
        return 0

    @staticmethod
    def _slot_match(bus: str, want: str) -> bool:
        """lspci -s: ``[[[[<domain>]:]<bus>]:][<slot>][.[<func>]]``."""
        b, _, devfn = bus.partition(":")
        d, _, f = devfn.partition(".")
        wb, rest = ("", want)
        if ":" in want:
            wb, _, rest = want.rpartition(":")
            wb = wb.split(":")[-1]
        wd, _, wf = rest.partition(".")
        try:
            return ((not wb or int(wb, 16) == int(b, 16)) and (not wd or int(wd, 16) == int(d, 16))
                    and (not wf or int(wf, 16) == int(f, 16)))
        except ValueError:
            return False

    def _verbose(self, ctx: Context, d: PciDev, level: int) -> None:
        cls, code, vname, vid, dname, did, rev = PCI_IDS[d.kind]
        o = ctx.outln
        sub = {"gpu": "NVIDIA Corporation Device 16c1", "ib": "Mellanox Technologies Device 0044",
               "eth": "Mellanox Technologies Device 0014", "nvme": "Samsung Electronics Co Ltd Device a812"}
        if d.kind in sub:
            o(f"\tSubsystem: {sub[d.kind]}")
        if d.kind == "switch":
            o("\tPhysical Slot: 0")
        o("\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+")
        o("\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-")
        o("\tLatency: 0")
        o(f"\tNUMA node: {d.numa}")
        if level >= 2 and d.kind in ("gpu", "ib", "eth", "nvme", "switch", "e810"):
            port = "Endpoint"
            if d.kind == "switch":
                upstream = {sw.bus[5:].lower() for sw in ctx.host.hw.pcie_switches}
                port = "Upstream Port" if d.bus in upstream else "Downstream Port"
            o(f"\tCapabilities: [60] Express (v2) {port}, MSI 00")
            o("\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us")
            o("\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-")
            o("\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-")
            o("\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes")
            o(f"\t\tLnkCap:\tPort #0, Speed {GEN_GTS[d.gen_max]}, Width x{d.width_max}, ASPM not supported")
            o("\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+")
            o("\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+")
            o("\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-")
            speed = GEN_GTS[d.gen] + (" (downgraded)" if d.gen < d.gen_max else "")
            width = f"x{d.width}" + (" (downgraded)" if d.width < d.width_max else "")
            o(f"\t\tLnkSta:\tSpeed {speed}, Width {width}")
            o("\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-")
        if d.driver:
            o(f"\tKernel driver in use: {d.driver}")
        modules = {"nvidia": "nvidiafb, nouveau, nvidia_drm, nvidia", "mlx5_core": "mlx5_core",
                   "nvme": "nvme", "pcieport": "", "ice": "ice", "ast": "ast"}.get(d.driver, "")
        if modules:
            o(f"\tKernel modules: {modules}")


# -- CPUs, NUMA, memory -----------------------------------------------------------------------------


def _cpu_list(node: Node, numa: int) -> list[int]:
    cpu = node.cpu
    cores = cpu.sockets * cpu.cores_per_socket
    lo = numa * cpu.cores_per_socket
    ids = list(range(lo, lo + cpu.cores_per_socket))
    if cpu.threads_per_core > 1:
        ids += [i + cores for i in ids]
    return ids


class Numactl(Command):
    name = "numactl"
    summary = "show the NUMA policy and hardware (numactl -H)"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-H", "--hardware", action="store_true", help="show inventory of available nodes")
        parser.add_argument("-s", "--show", action="store_true", help="show NUMA policy settings of this process")
        parser.add_argument("command", nargs=argparse.REMAINDER, help="command to run with the policy")

    def usage_error(self, message: str) -> str:
        return "usage: numactl [--all | -a] [--interleave= | -i <nodes>] [--preferred= | -p <node>]\n" \
               "               [--physcpubind= | -C <cpus>] [--cpunodebind= | -N <nodes>]\n" \
               "               [--membind= | -m <nodes>] [--localalloc | -l] command args ...\n" \
               "       numactl [--show | -s]\n       numactl [--hardware | -H]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        node = ctx.host
        if args.show:
            cpus = " ".join(str(c) for c in range(node.cpu.count))
            ctx.out("policy: default\npreferred node: current\n"
                    f"physcpubind: {cpus} \ncpubind: 0 1 \nnodebind: 0 1 \nmembind: 0 1 \n")
            return 0
        if not args.hardware:
            raise ctx.fail(self.usage_error(""), 1)
        mem = memory(ctx, node)
        numa = node.numa_nodes
        ctx.outln(f"available: {numa} nodes (0-{numa - 1})")
        for n in range(numa):
            size_mb = node.memory_kib // numa // 1024 - (1_300 if n == 0 else 0)
            free_mb = mem.free // numa // 1024 + (2_917 if n else -3_112)
            ctx.outln(f"node {n} cpus: " + " ".join(str(c) for c in _cpu_list(node, n)))
            ctx.outln(f"node {n} size: {size_mb} MB")
            ctx.outln(f"node {n} free: {max(0, free_mb)} MB")
        ctx.outln("node distances:")
        ctx.outln("node " + "".join(f"{n:>3} " for n in range(numa)))
        for a in range(numa):
            ctx.outln(f"{a:>3}: " + "".join(f"{10 if a == b else 21:>3} " for b in range(numa)))
        return 0


def _round1(value: float) -> str:
    """One decimal, halves rounded up (5.25 -> 5.3) as util-linux prints sizes."""
    return f"{math.floor(value * 10 + 0.5) / 10:.1f}"


class Lscpu(Command):
    name = "lscpu"
    summary = "display information about the CPU architecture"
    section = SECTION

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        node = ctx.host
        cpu = node.cpu
        platinum = "8480" in cpu.model
        cores = cpu.sockets * cpu.cores_per_socket
        rows: list[tuple[int, str, str]] = [
            (0, "Architecture", "x86_64"), (1, "CPU op-mode(s)", "32-bit, 64-bit"),
            (1, "Address sizes", "46 bits physical, 57 bits virtual"), (1, "Byte Order", "Little Endian"),
            (0, "CPU(s)", str(cpu.count)), (1, "On-line CPU(s) list", f"0-{cpu.count - 1}"),
            (0, "Vendor ID", "GenuineIntel"), (1, "Model name", cpu.model), (2, "CPU family", "6"),
            (2, "Model", "143"), (2, "Thread(s) per core", str(cpu.threads_per_core)),
            (2, "Core(s) per socket", str(cpu.cores_per_socket)), (2, "Socket(s)", str(cpu.sockets)),
            (2, "Stepping", "8"), (2, "CPU max MHz", f"{cpu.mhz_max:.4f}"), (2, "CPU min MHz", "800.0000"),
            (2, "BogoMIPS", "4000.00" if platinum else "4200.00"),
            (2, "Flags", "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx "
                         "fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs "
                         "bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 "
                         "monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic "
                         "movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch "
                         "cpuid_fault epb cat_l3 cat_l2 cdp_l3 invpcid_single intel_ppin cdp_l2 ssbd mba ibrs ibpb "
                         "stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 "
                         "hle avx2 smep bmi2 erms invpcid rtm cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma "
                         "clflushopt clwb intel_pt avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves "
                         "cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 "
                         "wbnoinvd dtherm ida arat pln pts hwp hwp_act_window hwp_epp hwp_pkg_req avx512vbmi umip "
                         "pku ospke waitpkg avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme "
                         "avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear "
                         "serialize tsxldtrk pconfig arch_lbr amx_bf16 avx512_fp16 amx_tile amx_int8 flush_l1d "
                         "arch_capabilities"),
            (0, "Virtualization features", ""), (1, "Virtualization", "VT-x"),
            (0, "Caches (sum of all)", ""),
            (1, "L1d", f"{_round1(cores * 48 / 1024)} MiB ({cores} instances)"),
            (1, "L1i", f"{_round1(cores * 32 / 1024)} MiB ({cores} instances)"),
            (1, "L2", f"{cores * 2} MiB ({cores} instances)"),
            (1, "L3", f"{105 * cpu.sockets if platinum else 60 * cpu.sockets} MiB ({cpu.sockets} instances)"),
            (0, "NUMA", ""), (1, "NUMA node(s)", str(node.numa_nodes)),
        ]
        rows += [(1, f"NUMA node{n} CPU(s)", cpu.cpus_of_numa(n)) for n in range(node.numa_nodes)]
        rows += [(0, "Vulnerabilities", "")]
        rows += [(1, name, value) for name, value in (
            ("Itlb multihit", "Not affected"), ("L1tf", "Not affected"), ("Mds", "Not affected"),
            ("Meltdown", "Not affected"), ("Mmio stale data", "Not affected"), ("Retbleed", "Not affected"),
            ("Spec store bypass", "Mitigation; Speculative Store Bypass disabled via prctl and seccomp"),
            ("Spectre v1", "Mitigation; usercopy/swapgs barriers and __user pointer sanitization"),
            ("Spectre v2", "Mitigation; Enhanced IBRS, IBPB conditional, RSB filling, PBRSB-eIBRS SW sequence"),
            ("Srbds", "Not affected"), ("Tsx async abort", "Not affected"))]
        width = max(2 * level + len(key) + 1 for level, key, _ in rows) + 1
        for level, key, value in rows:
            ctx.outln(f"{'  ' * level}{key}:".ljust(width) + value)
        return 0


def human_free(kib: int) -> str:
    """procps' human units: ``2.0Ti``, ``412Gi``, ``0B``."""
    if kib == 0:
        return "0B"
    value = kib * 1024.0
    for unit in ("B", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if value < 1024 or unit == "Pi":
            if unit == "B":
                return f"{int(value)}B"
            return f"{value:.1f}{unit}" if value < 10 else f"{int(round(value))}{unit}"
        value /= 1024
    return f"{value:.1f}Pi"


class Free(Command):
    name = "free"
    summary = "display amount of free and used memory in the system"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-h", "--human", action="store_true", help="show human-readable output")
        parser.add_argument("-g", "--gibi", action="store_true", help="show output in gibibytes")
        parser.add_argument("-m", "--mebi", action="store_true", help="show output in mebibytes")
        parser.add_argument("-k", "--kibi", action="store_true", help="show output in kibibytes")
        parser.add_argument("-w", "--wide", action="store_true", help="wide output")
        parser.add_argument("-t", "--total", action="store_true", help="show total for RAM + swap")
        parser.add_argument("--help", action="help", help="display this help and exit")

    add_help_flag = False
    usage_status = 1

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\n\nUsage:\n free [options]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        m = memory(ctx, ctx.host)

        def fmt(kib: int) -> str:
            if args.human:
                return human_free(kib)
            if args.gibi:
                return str(kib // 1024 // 1024)
            if args.mebi:
                return str(kib // 1024)
            return str(kib)

        if args.wide:
            ctx.outln(" " * 15 + "total        used        free      shared     buffers       cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buffers, m.cached, m.available]
        else:
            ctx.outln(" " * 15 + "total        used        free      shared  buff/cache   available")
            mem = [m.total, m.used, m.free, m.shared, m.buff_cache, m.available]
        ctx.outln(f"{'Mem:':<8}" + "".join(f"{fmt(v):>12}" for v in mem))
        ctx.outln(f"{'Swap:':<8}" + "".join(f"{fmt(v):>12}" for v in (0, 0, 0)))
        if args.total:
            ctx.outln(f"{'Total:':<8}" + "".join(f"{fmt(v):>12}" for v in (m.total, m.used, m.free)))
        return 0


# -- top, ps ---------------------------------------------------------------------------------------


def _scaled(kib: int, width: int) -> str:
    """top's memory columns: KiB while it fits, then m/g/t with one decimal."""
    text = str(kib)
    if len(text) <= width:
        return text
    value = float(kib)
    for unit in ("m", "g", "t"):
        value /= 1024
        text = f"{value:.1f}{unit}"
        if len(text) <= width:
            return text
    return text


def _top_time(seconds: float) -> str:
    """``TIME+``: minutes:seconds.hundredths."""
    hundredths = int(seconds * 100)
    minutes, rest = divmod(hundredths, 6000)
    return f"{minutes}:{rest // 100:02d}.{rest % 100:02d}"


class Top(Command):
    name = "top"
    summary = "display Linux processes (batch mode)"
    section = SECTION
    notes = "Batch mode only: prints -n iterations (default 1), -d seconds apart on the simulated clock."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-b", action="store_true", help="batch mode")
        parser.add_argument("-n", type=int, default=1, metavar="NUMBER", help="number of iterations")
        parser.add_argument("-d", type=float, default=3.0, metavar="SECS", help="delay between updates")
        parser.add_argument("-c", action="store_true", help="show command lines")
        parser.add_argument("-u", metavar="USER", help="only this user's processes")
        parser.add_argument("-p", metavar="PIDLIST", help="only these processes")
        parser.add_argument("-o", metavar="FIELD", help="sort by field (%%CPU, %%MEM, PID, RES, TIME+)")
        parser.add_argument("-w", type=int, nargs="?", const=512, metavar="COLS", help="output width")

    usage_status = 1

    def usage_error(self, message: str) -> str:
        return f"top: {getopt_error('top', message).split(': ', 1)[1]}\nUsage:\n  top -hv | -bcEeHiOSs1 -d secs " \
               "-n max -u|U user -p pid(s) -o field -w [cols]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        if args.n < 1 or args.n > 1000 or args.d < 0:
            raise ctx.fail("top: bad iterations argument" if args.n < 1 or args.n > 1000 else "top: bad delay interval",
                           1)
        return self._frames(ctx, args)

    def _frames(self, ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
        for i in range(args.n):
            if i:
                yield args.d
                ctx.outln()
            self._frame(ctx, args)
        return 0

    def _frame(self, ctx: Context, args: argparse.Namespace) -> None:
        node = ctx.host
        procs = processes(ctx, node)
        mem = memory(ctx, node, procs)
        now = ctx.clock.elapsed
        up = int(now - boot_offset(node))
        days, rest = divmod(up, 86_400)
        hours, minutes = rest // 3600, rest % 3600 // 60
        uptxt = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + \
            (f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min")
        one, five, fifteen = load_average(ctx.cluster, node)
        ctx.outln(f"top - {ctx.clock.now():%H:%M:%S} up {uptxt},  1 user,  load average: {one:.2f}, {five:.2f}, "
                  f"{fifteen:.2f}")
        tasks = len(procs) + 640 + rng(ctx.cluster.seed, node.name, "kthreads").randrange(40)
        running = sum(1 for p in procs if p.state.startswith("R"))
        ctx.outln(f"Tasks: {tasks:>3} total, {running:>3} running, {tasks - running:>3} sleeping,   0 stopped,   "
                  "0 zombie")
        busy = sum(p.cpu_pct for p in procs) / node.cpu.count
        us = min(99.0, busy * 0.9)
        sy = min(99.0 - us, busy * 0.1 + 0.3)
        wa = 0.1
        ctx.outln(f"%Cpu(s): {us:4.1f} us, {sy:4.1f} sy,  0.0 ni, {max(0.0, 100 - us - sy - wa - 0.2):4.1f} id, "
                  f"{wa:4.1f} wa,  0.0 hi,  0.2 si,  0.0 st")
        mib = 1024.0
        ctx.outln(f"MiB Mem : {mem.total / mib:8.1f} total, {mem.free / mib:8.1f} free, {mem.used / mib:8.1f} used, "
                  f"{mem.buff_cache / mib:8.1f} buff/cache")
        ctx.outln(f"MiB Swap: {0.0:8.1f} total, {0.0:8.1f} free, {0.0:8.1f} used. {mem.available / mib:8.1f} avail Mem ")
        ctx.outln()
        ctx.outln("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND")
        shown = procs
        if args.u:
            shown = [p for p in shown if p.user == args.u]
        if args.p:
            try:
                pids = {int(x) for x in args.p.split(",")}
            except ValueError:
                raise ctx.fail(f"top: pid not valid: {args.p}", 1) from None
            shown = [p for p in shown if p.pid in pids]
        key = (args.o or "%CPU").upper()
        sorters = {"%CPU": lambda p: p.cpu_pct, "%MEM": lambda p: p.rss_kib, "RES": lambda p: p.rss_kib,
                   "PID": lambda p: -p.pid, "TIME+": lambda p: p.cpu_time_s(now)}
        if key not in sorters:
            raise ctx.fail(f"top: unrecognized field name '{args.o}'", 1)
        shown = sorted(shown, key=lambda p: (sorters[key](p), -p.pid), reverse=True)
        limit = 40 if not (args.u or args.p) else len(shown)
        for p in shown[:limit]:
            state = p.state[0]
            cmd = p.args if args.c else p.comm
            ctx.outln(f"{p.pid:>7} {p.user:<8} {20 + p.nice:>3} {p.nice:>3} {_scaled(p.vsz_kib, 7):>7} "
                      f"{_scaled(p.rss_kib, 6):>6} {_scaled(p.shr_kib, 6):>6} {state} {p.cpu_pct:5.1f} "
                      f"{100.0 * p.rss_kib / mem.total:5.1f} {_top_time(p.cpu_time_s(now)):>9} {cmd}")


def _ps_start(ctx: Context, start_s: float) -> str:
    when = ctx.clock.at(start_s)
    if ctx.clock.elapsed - start_s < 86_400:
        return when.strftime("%H:%M")
    if when.year == ctx.clock.now().year:
        return when.strftime("%b%d")
    return when.strftime("%Y")


def _ps_time(seconds: float, long: bool) -> str:
    s = int(seconds)
    if not long:
        return f"{s // 60}:{s % 60:02d}"
    days, rest = divmod(s, 86_400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


PS_FIELDS = {
    "pid": ("PID", ">"), "ppid": ("PPID", ">"), "user": ("USER", "<"), "comm": ("COMMAND", "<"),
    "args": ("COMMAND", "<"), "cmd": ("CMD", "<"), "%cpu": ("%CPU", ">"), "pcpu": ("%CPU", ">"),
    "%mem": ("%MEM", ">"), "pmem": ("%MEM", ">"), "rss": ("RSS", ">"), "vsz": ("VSZ", ">"), "stat": ("STAT", "<"),
    "etime": ("ELAPSED", ">"), "time": ("TIME", ">"), "nlwp": ("NLWP", ">"), "tty": ("TT", "<"),
    "lstart": ("STARTED", "<"), "start": ("STARTED", ">"),
}


#: procps' default column widths for -o fields.
PS_WIDTHS = {"pid": 7, "ppid": 7, "user": 8, "comm": 15, "%cpu": 4, "pcpu": 4, "%mem": 4, "pmem": 4, "rss": 5,
             "vsz": 6, "stat": 4, "etime": 11, "time": 8, "nlwp": 4, "tty": 8}


class Ps(Command):
    name = "ps"
    summary = "report a snapshot of the current processes"
    section = SECTION
    parses_args = False
    notes = "Supported: ps aux, ps -ef, ps -u USER, ps -p PID[,PID] -o FIELD[,FIELD], --sort=[-]FIELD, --no-headers."

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        bsd, full, headers = False, False, True
        fields: list[str] = []
        pids: set[int] | None = None
        users: set[str] | None = None
        sort = ""
        all_procs = False
        i = 0
        while i < len(words):
            w = words[i]
            nxt = words[i + 1] if i + 1 < len(words) else None
            if w in ("--help", "-h"):
                ctx.out("\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n"
                        "  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n")
                return 0
            if w.startswith("--sort"):
                sort = w.split("=", 1)[1] if "=" in w else (nxt or "")
                i += 1 if "=" in w else 2
                continue
            if w == "--no-headers":
                headers = False
            elif w in ("-o", "o", "-O") or w.startswith("-o"):
                spec = w[2:] if w.startswith("-o") and len(w) > 2 else (nxt or "")
                if not (w.startswith("-o") and len(w) > 2):
                    i += 1
                fields += [f.strip().split("=")[0].lower() for f in spec.split(",") if f.strip()]
            elif w in ("-p", "p", "--pid") or (w.startswith("-p") and w[2:].replace(",", "").isdigit()):
                spec = w[2:] if len(w) > 2 and w.startswith("-p") else (nxt or "")
                if not (len(w) > 2 and w.startswith("-p")):
                    i += 1
                try:
                    pids = {int(x) for x in spec.replace(" ", ",").split(",") if x}
                except ValueError:
                    raise ctx.fail("error: process ID list syntax error\n\nUsage:\n ps [options]", 1) from None
            elif w in ("-u", "-U", "-C", "--user"):
                users = set((nxt or "").split(","))
                i += 1
            elif w in ("aux", "auxf", "auxww", "axu", "-aux", "aux"):
                bsd, all_procs = True, True
            elif w in ("-ef", "-e", "-A", "-eF", "-efww", "ax", "-e"):
                all_procs = True
                full = w in ("-ef", "-eF", "-efww")
            elif w in ("-f",):
                full = True
            else:
                raise ctx.fail("error: unsupported option (BSD syntax)\n\nUsage:\n ps [options]\n\n"
                               " Try 'ps --help <simple|list|output|threads|misc|all>'\n"
                               "  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.", 1)
            i += 1
        node = ctx.host
        procs = processes(ctx, node)
        mem = memory(ctx, node, procs)
        now = ctx.clock.elapsed
        if pids is not None:
            procs = [p for p in procs if p.pid in pids]
        if users is not None:
            procs = [p for p in procs if p.user in users]
        if not all_procs and pids is None and users is None:
            shell_pid = 4000 + int(now) % 1000
            procs = [Proc(shell_pid, 3999, "alice", "bash", "-bash", 0.0, 5_300, 8_900, 3_500, "Ss", now - 60, tty="pts/0"),
                     Proc(shell_pid + 1, shell_pid, "alice", "ps", "ps", 0.0, 1_600, 10_100, 1_300, "R+", now,
                          tty="pts/0")]
        if sort:
            key = sort.lstrip("-+").lower()
            getter = {"%cpu": lambda p: p.cpu_pct, "pcpu": lambda p: p.cpu_pct, "%mem": lambda p: p.rss_kib,
                      "pmem": lambda p: p.rss_kib, "rss": lambda p: p.rss_kib, "pid": lambda p: p.pid,
                      "vsz": lambda p: p.vsz_kib, "time": lambda p: p.cpu_time_s(now)}.get(key)
            if getter is None:
                raise ctx.fail("error: unknown sort specifier\n\nUsage:\n ps [options]", 1)
            procs = sorted(procs, key=getter, reverse=sort.startswith("-"))
        missing = pids is not None and not procs
        pct_mem = lambda p: 100.0 * p.rss_kib / mem.total  # noqa: E731
        if fields:
            self._custom(ctx, procs, fields, headers, pct_mem, now)
        elif bsd:
            if headers:
                ctx.outln("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND")
            for p in procs:
                ctx.outln(f"{p.user:<8} {p.pid:>7} {p.cpu_pct:>4.1f} {pct_mem(p):>4.1f} {p.vsz_kib:>6} {p.rss_kib:>5} "
                          f"{p.tty:<8} {p.state:<4} {_ps_start(ctx, p.start_s):>5} "
                          f"{_ps_time(p.cpu_time_s(now), False):>6} {p.args}")
        elif full:
            if headers:
                ctx.outln("UID          PID    PPID  C STIME TTY          TIME CMD")
            for p in procs:
                ctx.outln(f"{p.user:<8} {p.pid:>7} {p.ppid:>7} {min(99, int(p.cpu_pct)):>2} "
                          f"{_ps_start(ctx, p.start_s):<5} {p.tty:<8} {_ps_time(p.cpu_time_s(now), True):>8} {p.args}")
        else:
            if headers:
                ctx.outln("    PID TTY          TIME CMD")
            for p in procs:
                ctx.outln(f"{p.pid:>7} {p.tty:<8} {_ps_time(p.cpu_time_s(now), True):>8} {p.comm}")
        return 1 if missing else 0

    def _custom(self, ctx: Context, procs: list[Proc], fields: list[str], headers: bool,
                pct_mem: Callable[[Proc], float], now: float) -> None:
        for f in fields:
            if f not in PS_FIELDS:
                raise ctx.fail(f"error: unknown user-defined format specifier \"{f}\"\n\nUsage:\n ps [options]", 1)

        def value(p: Proc, f: str) -> str:
            etime = max(0, int(now - p.start_s))
            return {
                "pid": str(p.pid), "ppid": str(p.ppid), "user": p.user, "comm": p.comm, "args": p.args,
                "cmd": p.args, "%cpu": f"{p.cpu_pct:.1f}", "pcpu": f"{p.cpu_pct:.1f}", "%mem": f"{pct_mem(p):.1f}",
                "pmem": f"{pct_mem(p):.1f}", "rss": str(p.rss_kib), "vsz": str(p.vsz_kib), "stat": p.state,
                "etime": _ps_etime(etime), "time": _ps_time(p.cpu_time_s(now), True), "nlwp": str(p.threads),
                "tty": p.tty, "lstart": ctx.clock.at(p.start_s).strftime("%a %b %e %H:%M:%S %Y"),
                "start": _ps_start(ctx, p.start_s),
            }[f]

        table = [[value(p, f) for f in fields] for p in procs]
        widths = []
        for k, f in enumerate(fields):
            head = PS_FIELDS[f][0]
            widths.append(max([len(head), PS_WIDTHS.get(f, 0)] + [len(row[k]) for row in table]))
        rows = ([[PS_FIELDS[f][0] for f in fields]] if headers else []) + table
        for row in rows:
            cells = []
            for k, f in enumerate(fields):
                last = k == len(fields) - 1
                align = PS_FIELDS[f][1]
                if last and align == "<":
                    cells.append(row[k])
                else:
                    cells.append(f"{row[k]:{align}{widths[k]}}")
            ctx.outln(" ".join(cells).rstrip() if fields[-1] in ("args", "cmd", "comm") else " ".join(cells))


def _ps_etime(seconds: int) -> str:
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


# -- filesystems ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mount:
    source: str
    target: str
    fstype: str
    options: str
    size_kib: int
    used_kib: int

    @property
    def avail_kib(self) -> int:
        reserve = self.size_kib // 20 if self.fstype == "ext4" else 0
        return max(0, self.size_kib - self.used_kib - reserve)


def mounts(ctx: Context, node: Node) -> list[Mount]:
    """What the host has mounted, with sizes from the model."""
    r = rng(ctx.cluster.seed, node.name, "df")
    mem_kib = node.memory_kib
    fs = ctx.cluster.storage
    lustre_size = sum(t.size_kib for t in fs.targets if t.kind == "OST")
    lustre_used = sum(t.used_kib for t in fs.targets if t.kind == "OST")
    root_disk = node.hw.disks[0].size_bytes // 1024 if node.hw.disks else 1_875_385_008
    training = any(j.is_training for j in _running_jobs(ctx.cluster, node))
    items = [
        Mount("tmpfs", "/run", "tmpfs", "rw,nosuid,nodev,noexec,relatime,size=211340712k,mode=755", mem_kib // 10,
              5_300 + r.randrange(400)),
        Mount("/dev/nvme0n1p2", "/", "ext4", "rw,relatime", root_disk - 1_100_000,
              40_000_000 + r.randrange(8_000_000)),
        Mount("tmpfs", "/dev/shm", "tmpfs", "rw,nosuid,nodev,inode64", mem_kib // 2,
              (14_600_000 if training else 0) + r.randrange(2_000)),
        Mount("tmpfs", "/run/lock", "tmpfs", "rw,nosuid,nodev,noexec,relatime,size=5120k,inode64", 5_120, 0),
        Mount("/dev/nvme0n1p1", "/boot/efi", "vfat", "rw,relatime,fmask=0077,dmask=0077,codepage=437", 523_248, 6_220),
    ]
    if node.local_disk is not None:
        d = node.local_disk
        size = d.member_bytes * len(d.members) // 1024 - 440_000_000
        items.append(Mount(d.device, d.mountpoint, "ext4", "rw,relatime,stripe=256", size,
                           int(size * d.used_fraction)))
    items.append(Mount(f"{fs.mgs_nid}:/{fs.fsname}", fs.mountpoint, "lustre",
                       "rw,checksum,flock,nouser_xattr,lruresize,lazystatfs,nouser_fid2path,verbose,encrypt",
                       lustre_size, lustre_used))
    items.append(Mount("tmpfs", "/run/user/1001", "tmpfs", "rw,nosuid,nodev,relatime,size=211340708k,nr_inodes="
                       "52835177,mode=700,uid=1001,gid=1001,inode64", mem_kib // 10, 4))
    return items


def human_df(kib: int, si: bool = False) -> str:
    """coreutils' ``-h`` sizes: rounded up, one decimal below 10 (``5.2M``, ``207G``, ``0``)."""
    if kib == 0:
        return "0"
    base = 1000.0 if si else 1024.0
    value = kib * 1024.0 / base if not si else kib * 1024.0 / 1000.0
    units = "kMGTPE" if si else "KMGTPE"
    for unit in units:
        if value < base or unit == units[-1]:
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{unit}"
            return f"{math.ceil(value):.0f}{unit}"
        value /= base
    return f"{value:.0f}E"


class Df(Command):
    name = "df"
    summary = "report file system space usage"
    section = SECTION
    add_help_flag = False

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-h", "--human-readable", action="store_true", help="print sizes in powers of 1024")
        parser.add_argument("-H", "--si", action="store_true", help="print sizes in powers of 1000")
        parser.add_argument("-T", "--print-type", action="store_true", help="print file system type")
        parser.add_argument("-t", "--type", metavar="TYPE", help="limit listing to file systems of type TYPE")
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("files", nargs="*", metavar="FILE", help="show the file system holding each FILE")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        items = mounts(ctx, ctx.host)
        status = 0
        if args.type:
            items = [m for m in items if m.fstype == args.type]
        if args.files:
            chosen = []
            for path in args.files:
                full = ctx.fs.abspath(path)
                if not ctx.fs.exists(full) and not any(full == m.target or full.startswith(m.target.rstrip("/") + "/")
                                                       for m in items if m.target != "/"):
                    ctx.err(f"df: {path}: No such file or directory\n")
                    status = 1
                    continue
                best = max((m for m in items if full == m.target or full.startswith(m.target.rstrip("/") + "/")
                            or m.target == "/"), key=lambda m: len(m.target))
                chosen.append(best)
            items = chosen
        human = args.human_readable or args.si

        def size(kib: int) -> str:
            return human_df(kib, args.si) if human else str(kib)

        head = ["Filesystem"] + (["Type"] if args.print_type else []) + \
            (["Size", "Used", "Avail", "Use%", "Mounted on"] if human else
             ["1K-blocks", "Used", "Available", "Use%", "Mounted on"])
        rows = []
        for m in items:
            pct = "-" if not m.size_kib else f"{math.ceil(100 * m.used_kib / max(1, m.used_kib + m.avail_kib))}%"
            rows.append([m.source] + ([m.fstype] if args.print_type else []) +
                        [size(m.size_kib), size(m.used_kib), size(m.avail_kib), pct, m.target])
        if not rows:
            return status or 0
        left = {0, len(head) - 1} | ({1} if args.print_type else set())
        # With -h/-H the size columns are at least 5 wide and Use% 4, as coreutils pads them.
        minimum = [5 if human and k not in left and head[k] != "Use%" else 4 if head[k] == "Use%" else 0
                   for k in range(len(head))]
        widths = [max([minimum[k]] + [len(r[k]) for r in [head] + rows]) for k in range(len(head))]
        for r in [head] + rows:
            cells = [r[k].ljust(widths[k]) if k in left else r[k].rjust(widths[k]) for k in range(len(head))]
            ctx.outln(" ".join(cells).rstrip())
        return status


class MountCmd(Command):
    name = "mount"
    summary = "show mounted filesystems"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-t", "--types", metavar="TYPE", help="limit the listing to this filesystem type")
        parser.add_argument("-l", "--show-labels", action="store_true", help="show also filesystem labels")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        system = [("sysfs", "/sys", "sysfs", "rw,nosuid,nodev,noexec,relatime"),
                  ("proc", "/proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
                  ("udev", "/dev", "devtmpfs", "rw,nosuid,relatime,size=1056672556k,nr_inodes=264168139,mode=755,"
                                               "inode64"),
                  ("devpts", "/dev/pts", "devpts", "rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000")]
        items = [(s, t, f, o) for s, t, f, o in system] + \
            [(m.source, m.target, m.fstype, m.options) for m in mounts(ctx, ctx.host)]
        for source, target, fstype, options in items:
            if args.types and fstype not in args.types.split(","):
                continue
            ctx.outln(f"{source} on {target} type {fstype} ({options})")
        return 0


# -- iostat, vmstat -----------------------------------------------------------------------------------

IOSTAT_HEAD = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm "
               "w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")


def _column_edges(header: str) -> list[int]:
    edges, pos = [], 0
    for token in header.split()[1:]:
        pos = header.index(token, pos) + len(token)
        edges.append(pos)
    return edges


def _device_load(ctx: Context, node: Node, device: str, sample: int) -> list[float]:
    """One iostat row for ``device``: seeded modest load, different per sample."""
    r = rng(ctx.cluster.seed, node.name, "io", device, sample, int(ctx.clock.elapsed))
    # Jobs stage data and spill to the local RAID; an idle node's array is quiet.
    busy = (node.local_disk is not None and device in (("md0",) + node.local_disk.members)
            and bool(_running_jobs(ctx.cluster, node)))
    if device == "nvme0n1":
        rs, rkb, ws, wkb = r.uniform(0.5, 3), r.uniform(20, 90), r.uniform(8, 30), r.uniform(150, 600)
    elif busy:
        scale = 8.0 if device == "md0" else 1.0
        rs, ws = r.uniform(10, 30) * scale, r.uniform(2, 9) * scale
        rkb, wkb = rs * r.uniform(120, 130), ws * r.uniform(240, 260)
    else:
        rs = rkb = ws = wkb = 0.0
    rawait = r.uniform(0.08, 0.2) if rs else 0.0
    wawait = r.uniform(0.02, 0.08) if ws else 0.0
    aqu = rs * rawait / 1000 + ws * wawait / 1000
    util = min(100.0, (rs + ws) * 0.012)
    return [rs, rkb, 0.0, 0.0, rawait, rkb / rs if rs else 0.0, ws, wkb, r.uniform(0, 3) if ws else 0.0,
            0.0, wawait, wkb / ws if ws else 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            r.uniform(0, 1) if ws else 0.0, r.uniform(0.3, 0.6) if ws else 0.0, aqu, util]


def _cpu_split(ctx: Context, node: Node, sample: int, procs: list[Proc]) -> tuple[float, float, float, float]:
    busy = sum(p.cpu_pct for p in procs) / node.cpu.count
    r = rng(ctx.cluster.seed, node.name, "cpu", sample, int(ctx.clock.elapsed))
    user = min(99.0, busy * 0.9 + r.uniform(0, 0.4))
    system = min(99.0 - user, busy * 0.1 + 0.3 + r.uniform(0, 0.1))
    iowait = 0.05 + r.uniform(0, 0.05)
    return user, system, iowait, max(0.0, 100.0 - user - system - iowait)


class Iostat(Command):
    name = "iostat"
    summary = "report CPU and block device I/O statistics (sysstat 12)"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-x", action="store_true", help="display extended statistics")
        parser.add_argument("-c", action="store_true", help="display the CPU utilization report only")
        parser.add_argument("-d", action="store_true", help="display the device utilization report only")
        parser.add_argument("-y", action="store_true", help="omit the first report (statistics since boot)")
        parser.add_argument("-m", action="store_true", help="display statistics in megabytes per second")
        parser.add_argument("devices", nargs="*", metavar="[device] [interval [count]]",
                            help="devices to report, then interval and count")

    def usage_error(self, message: str) -> str:
        return ("Usage: iostat [ options ] [ <interval> [ <count> ] ]\nOptions are:\n"
                "[ -c ] [ -d ] [ -h ] [ -k | -m ] [ -N ] [ -s ] [ -t ] [ -V ] [ -x ] [ -y ] [ -z ]")

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        numbers = [w for w in args.devices if w.isdigit()]
        names = [w for w in args.devices if not w.isdigit()]
        if len(numbers) > 2 or (numbers and args.devices[-len(numbers):] != numbers):
            raise ctx.fail(self.usage_error(""), 1)
        interval = int(numbers[0]) if numbers else 0
        count = int(numbers[1]) if len(numbers) > 1 else (1 if not interval else 1_000)
        count = min(count, 1_000)
        node = ctx.host
        devices = [d.name for d in node.hw.disks]
        if node.local_disk is not None:
            devices.append(node.local_disk.device.split("/")[-1])
        if names:
            unknown = [n for n in names if n not in devices]
            if unknown:
                return self._report(ctx, args, [], interval, count)
            devices = [d for d in devices if d in names]
        return self._report(ctx, args, devices, interval, count)

    def _report(self, ctx: Context, args: argparse.Namespace, devices: list[str], interval: int,
                count: int) -> Generator[float, None, int]:
        node = ctx.host
        ctx.outln(f"Linux {ctx.cluster.versions.kernel} ({node.name}) \t{ctx.clock.now():%m/%d/%y} \t_x86_64_\t"
                  f"({node.cpu.count} CPU)")
        ctx.outln()
        first = 1 if args.y else 0
        for n in range(first, first + count):
            if n > first or (args.y and interval):
                yield float(interval)
            show_cpu = args.c or not args.d
            show_dev = args.d or not args.c
            if show_cpu:
                us, sy, wa, idle = _cpu_split(ctx, node, n, processes(ctx, node))
                ctx.outln("avg-cpu:  %user   %nice %system %iowait  %steal   %idle")
                ctx.outln(f"          {us:6.2f}    0.00  {sy:6.2f}  {wa:6.2f}    0.00  {idle:6.2f}")
                ctx.outln()
            if show_dev:
                if args.x:
                    edges = _column_edges(IOSTAT_HEAD)
                    ctx.outln(IOSTAT_HEAD)
                    for dev in devices:
                        row = dev.ljust(13)
                        for value, edge in zip(_device_load(ctx, node, dev, n), edges):
                            text = f"{value:.2f}"
                            row += " " * max(1, edge - len(row) - len(text)) + text
                        ctx.outln(row)
                else:
                    ctx.outln("Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn"
                              "    kB_dscd")
                    uptime = ctx.clock.elapsed - boot_offset(node)
                    for dev in devices:
                        v = _device_load(ctx, node, dev, n)
                        span = uptime if n == 0 else max(1, interval)
                        ctx.outln(f"{dev:<12} {v[0] + v[6]:>9.2f} {v[1]:>12.2f} {v[7]:>12.2f} {0.0:>12.2f} "
                                  f"{int(v[1] * span):>10} {int(v[7] * span):>10} {0:>10}")
                ctx.outln()
        return 0


class Vmstat(Command):
    name = "vmstat"
    summary = "report virtual memory statistics"
    section = SECTION

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-w", "--wide", action="store_true", help="wide output")
        parser.add_argument("-S", "--unit", metavar="UNIT", help="k, K, m or M")
        parser.add_argument("numbers", nargs="*", metavar="delay [count]", help="delay and count")

    def usage_error(self, message: str) -> str:
        return getopt_error(self.name, message) + "\n\nUsage:\n vmstat [options] [delay [count]]"

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        assert args is not None
        try:
            numbers = [int(n) for n in args.numbers]
        except ValueError:
            raise ctx.fail("vmstat: Unable to parse argument\n\nUsage:\n vmstat [options] [delay [count]]", 1) from None
        if len(numbers) > 2 or any(n < 0 for n in numbers):
            raise ctx.fail("vmstat: Unable to parse argument\n\nUsage:\n vmstat [options] [delay [count]]", 1)
        delay = numbers[0] if numbers else 0
        count = numbers[1] if len(numbers) > 1 else (1 if not delay else 1_000)
        if delay == 0:
            count = 1
        return self._lines(ctx, delay, min(count, 1_000), (args.unit or "k"))

    def _lines(self, ctx: Context, delay: int, count: int, unit: str) -> Generator[float, None, int]:
        node = ctx.host
        div = 1024 if unit in ("m", "M") else 1
        ctx.outln("procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----")
        ctx.outln(" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st")
        for n in range(count):
            if n:
                yield float(delay)
            procs = processes(ctx, node)
            mem = memory(ctx, node, procs)
            running = sum(1 for p in procs if p.state.startswith("R"))
            r = rng(ctx.cluster.seed, node.name, "vmstat", n, int(ctx.clock.elapsed))
            us, sy, wa, idle = _cpu_split(ctx, node, n, procs)
            loads = [_device_load(ctx, node, d.name, n) for d in node.hw.disks]
            bi, bo = int(sum(v[1] for v in loads)), int(sum(v[7] for v in loads))
            irq = int(4000 + running * 900 + r.uniform(0, 800))
            cs = int(6000 + running * 2400 + r.uniform(0, 2000))
            ctx.outln(f"{running:>2} {0:>2} {0:>6} {mem.free // div:>6} {mem.buffers // div:>6} "
                      f"{mem.cached // div:>6} {0:>4} {0:>4} {bi:>5} {bo:>5} {irq:>4} {cs:>4} {round(us):>2} "
                      f"{round(sy):>2} {round(idle):>2} {round(wa):>2} {0:>2}")
        return 0


# -- lfs ----------------------------------------------------------------------------------------------------


def human_lfs(kib: int) -> str:
    value = float(kib)
    for unit in ("K", "M", "G", "T", "P", "E"):
        if value < 1024 or unit == "E":
            return f"{value:.1f}{unit}" if unit != "K" else f"{int(value)}"
        value /= 1024
    return f"{value:.1f}E"


class Lfs(Command):
    name = "lfs"
    summary = "Lustre client utility: df, check servers"
    section = SECTION
    parses_args = False
    notes = "Supported: lfs df [-h] [-i] [path], lfs check servers|osts|mds."

    def execute(self, ctx: Context, args: argparse.Namespace | None) -> Outcome:
        words = ctx.argv[1:]
        fs = ctx.cluster.storage
        if not words or words[0] in ("help", "-h", "--help"):
            ctx.out("Usage: lfs [CMD]\nlfs commands used here: df, check\n")
            return 0 if words else 1
        cmd, rest = words[0], words[1:]
        if cmd == "df":
            human = any(w in ("-h", "--human-readable") for w in rest)
            inodes = any(w in ("-i", "--inodes") for w in rest)
            paths = [w for w in rest if not w.startswith("-")]
            bad = [w for w in rest if w.startswith("-") and w not in ("-h", "--human-readable", "-i", "--inodes")]
            if bad:
                raise ctx.fail(f"lfs df: unrecognized option '{bad[0]}'\nusage: df [--inodes|-i] "
                               "[--human-readable|-h] [--lazy|-l] [--pool|-p <fsname>[.<pool>]] [path]", 22)
            for path in paths:
                full = ctx.fs.abspath(path)
                if not (full == fs.mountpoint or full.startswith(fs.mountpoint + "/")):
                    raise ctx.fail(f"lfs df: {path} isn't mounted on lustre", 19)
            self._df(ctx, human, inodes)
            return 0
        if cmd == "check":
            what = rest[0] if rest else ""
            if what not in ("servers", "osts", "mds", "mgts"):
                raise ctx.fail("lfs check: missing target type\nusage: check <mgts|osts|mdts|all>", 22)
            tag = f"ffff{rng(ctx.cluster.seed, ctx.host.name, 'sb').getrandbits(48):012x}"
            for t in fs.targets:
                kind = "mdc" if t.kind == "MDT" else "osc"
                if what == "servers" or (what == "osts" and kind == "osc") or (what == "mds" and kind == "mdc"):
                    ctx.outln(f"{t.name}-{kind}-{tag} active.")
            if what in ("servers", "mgts"):
                ctx.outln(f"MGC{fs.mgs_nid} active.")
            return 0
        raise ctx.fail(f"lfs: unknown command '{cmd}'\ntry 'lfs help' for more information", 1)

    def _df(self, ctx: Context, human: bool, inodes: bool) -> None:
        fs = ctx.cluster.storage
        mp = fs.mountpoint

        def cell(kib: int) -> str:
            return human_lfs(kib) if human else str(kib)

        if inodes:
            ctx.outln(f"{'UUID':<20}{'Inodes':>12}{'IUsed':>12}{'IFree':>12} IUse% Mounted on")
        else:
            ctx.outln(f"{'UUID':<20}{'bytes' if human else '1K-blocks':>12}{'Used':>12}{'Available':>12} Use% "
                      "Mounted on")
        totals = [0, 0, 0]
        for t in fs.targets:
            index = int(t.name[-4:], 16)
            kind = "MDT" if t.kind == "MDT" else "OST"
            if inodes:
                total = t.size_kib // (2 if kind == "MDT" else 512)
                used = int(total * t.used_kib / max(1, t.size_kib))
                vals = [total, used, total - used]
            else:
                vals = [t.size_kib, t.used_kib, t.size_kib - t.used_kib]
            if (kind == "OST") != inodes:
                totals = [a + b for a, b in zip(totals, vals)]
            pct = math.ceil(100 * vals[1] / max(1, vals[0]))
            name = f"{t.name}_UUID"
            ctx.outln(f"{name:<20}{cell(vals[0]) if not inodes else vals[0]:>12}"
                      f"{cell(vals[1]) if not inodes else vals[1]:>12}{cell(vals[2]) if not inodes else vals[2]:>12}"
                      f"{pct:>4}% {mp}[{kind}:{index}]")
        ctx.outln()
        pct = math.ceil(100 * totals[1] / max(1, totals[0]))
        cells = [cell(v) if not inodes else str(v) for v in totals]
        ctx.outln(f"{'filesystem_summary:':<20}{cells[0]:>12}{cells[1]:>12}{cells[2]:>12}{pct:>4}% {mp}")
        ctx.outln()


def commands() -> list[Command]:
    return [Lspci(), Numactl(), Lscpu(), Free(), Top(), Ps(), Df(), MountCmd(), Iostat(), Vmstat(), Lfs()]

