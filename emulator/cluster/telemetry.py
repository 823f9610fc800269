"""GPU readings under load: what NVML (nvidia-smi, DCGM) would sample now.

The GPU dataclass holds conditions (clock caps, active slowdown reasons,
error counts, the cooling it gets); this module turns them and the load into
the numbers tools print. A GPU is busy when a running Slurm job owns it: the
training run's rank on that GPU, or another tenant's job on its node. A rank
starting up (from its launch to its first step) or one whose run failed at
start-up holds a CUDA context and runs no kernel: it reads near idle.

Every sample carries seeded jitter keyed by (node, GPU, simulated second), so
two tools asked at the same instant agree, and a second sample a few seconds
later differs a little, as real counters do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.cluster import memo
from emulator.cluster.activity import gpu_utilization
from emulator.cluster.catalog import H100
from emulator.cluster.gpu_rates import POWER_EXPONENT, power_limited, sm_clock_under_load
from emulator.cluster.hardware import GPU, NVLink
from emulator.cluster.ids import rng
from emulator.cluster.savefailure import oom_memory
from emulator.cluster.timeline import failed_at, start_up

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node
    from emulator.cluster.scheduler import Job
    from emulator.cluster.training import TrainingRun

#: Process name the driver reports for a PyTorch rank.
PROCESS_NAME = "/usr/bin/python3"
#: Memory the driver keeps for itself on an idle GPU (MiB), as ``nvidia-smi`` shows.
IDLE_USED_MIB = 1
#: A rank's CUDA context before its model is loaded: its memory (MiB) and the draw (W) it adds over idle.
CONTEXT_MIB = 520
CONTEXT_W = 28.0
#: What a job's process holds on each GPU (MiB): one figure for the job (its model, optimizer state and
#: activations, the same on every rank of a symmetric data-parallel job), and what each rank adds to it
#: (allocator fragmentation, NCCL buffers, its own pinned staging), up to about 1.5 GiB apart.
JOB_MEM_MIB = (64_000, 72_000)
RANK_SPREAD_MIB = 1_600
#: Reasons a fault may hold active whatever the load (external or thermal signals).
SLOWDOWN_REASONS = ("SW Power Cap", "HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown",
                    "SW Thermal Slowdown")
#: Bit of each clock event reason in NVML's bitmask (nvmlClocksEventReason*; DCGM_CLOCKS_EVENT_REASON_*).
REASON_BITS = {
    "Idle": 0x1, "Applications Clocks Setting": 0x2, "SW Power Cap": 0x4, "HW Slowdown": 0x8,
    "Sync Boost": 0x10, "SW Thermal Slowdown": 0x20, "HW Thermal Slowdown": 0x40,
    "HW Power Brake Slowdown": 0x80, "Display Clock Setting": 0x100,
}


def reasons_mask(reasons: frozenset[str]) -> int:
    """The clock event reasons as NVML's bitmask: HW Slowdown is set with either of its sub-reasons."""
    active = set(reasons)
    if active & {"HW Thermal Slowdown", "HW Power Brake Slowdown"}:
        active.add("HW Slowdown")
    return sum(REASON_BITS[r] for r in active if r in REASON_BITS)


@dataclass(frozen=True)
class GpuProcess:
    """A compute process holding a context on one GPU."""

    pid: int
    name: str
    used_mib: int


@dataclass(frozen=True)
class Reading:
    """One NVML sample of one GPU."""

    busy: bool
    util_pct: int
    mem_util_pct: int
    mem_used_mib: int
    power_w: float
    temp_c: int
    mem_temp_c: int
    sm_mhz: int
    mem_mhz: int
    pstate: str
    reasons: frozenset[str]

    @property
    def mem_free_mib(self) -> int:
        return H100.memory_mib - H100.reserved_mib - self.mem_used_mib

    @property
    def tlimit_margin_c(self) -> int:
        """``GPU T.Limit Temp``: degrees left before the slowdown threshold."""
        return H100.tlimit_c - self.temp_c


def processes(cluster: Cluster, node: Node, gpu: GPU, at: float | None = None) -> list[GpuProcess]:
    """The compute processes on ``gpu``: one per running job that owns it (at offset ``at``; default now).

    A GPU outside the NVLink fabric (Fabric Manager down) has none: CUDA cannot
    initialise on it, so no rank holds a context there. Once the launcher has
    torn a stopped training run down (after the NCCL watchdog), its ranks are gone.
    """
    if not gpu.present or gpu.fabric_state != "Completed":
        return []

    run = cluster.training
    torn_down = failed_at(cluster)
    run_gone = torn_down is not None and _instant(cluster, at) >= torn_down
    found: list[GpuProcess] = []
    for job in cluster.slurm.jobs:
        if node.name not in job.nodes or not _running(job, at):
            continue
        pid = 0
        if run is not None and job.job_id == run.job_id:
            if run_gone:
                continue
            pid = next((r.pid for r in run.ranks if r.node == node.name and r.gpu == gpu.index), 0)
        elif gpu.index < job.gpus_per_node:
            pid = rng(cluster.seed, "job", job.job_id, node.name, "pids").randint(90_000, 160_000) + gpu.index * 5
        if pid:
            used = job_memory_mib(cluster.seed, job.job_id) + \
                rng(cluster.seed, node.name, "gpu", gpu.index, "job", job.job_id, "mem").randint(0, RANK_SPREAD_MIB)
            if run is not None and job.job_id == run.job_id and _ran_out(run, node.name, gpu.index):
                used = oom_memory(cluster.seed, run).used_mib
            if run is not None and job.job_id == run.job_id and _starting(cluster, node, gpu, _instant(cluster, at)) \
                    is False:
                used = CONTEXT_MIB      # no model on the GPU yet
            found.append(GpuProcess(pid=pid, name=PROCESS_NAME, used_mib=used))
    return found


def job_memory_mib(seed: int, job_id: int) -> int:
    """The memory (MiB) every process of a job holds on its GPU before what its rank adds."""
    return rng(seed, "job", job_id, "mem").randint(*JOB_MEM_MIB)


def _ran_out(run: TrainingRun, node: str, gpu: int) -> bool:
    """Whether this GPU's rank is the one whose checkpoint write ran out of GPU memory."""
    failed = set(run.broken_checkpoints.values()) if run.checkpoint_why == "oom" else set()
    return any(r.rank in failed and r.node == node and r.gpu == gpu for r in run.ranks)


def _running(job: Job, at: float | None) -> bool:
    """Whether ``job`` runs now (None) or ran at offset ``at``."""
    if at is None:
        return job.state == "RUNNING"
    return job.start_s is not None and job.start_s <= at and (job.end_s is None or at < job.end_s)


def _instant(cluster: Cluster, at: float | None) -> float:
    return cluster.clock.elapsed if at is None else at


def sample(cluster: Cluster, node: Node, gpu: GPU, at: float | None = None) -> Reading:
    """What NVML reads for ``gpu`` at offset ``at`` (default: now); kept, by that instant, for the rest of
    a command that changes nothing (:mod:`emulator.cluster.memo`: ``dcgmi dmon`` reads each field apart)."""
    t = _instant(cluster, at)
    return memo.kept("telemetry.sample", (cluster, node, gpu), (t, at is None),
                     lambda: _sample(cluster, node, gpu, t, at))


def _sample(cluster: Cluster, node: Node, gpu: GPU, t: float, at: float | None) -> Reading:
    jitter = rng(cluster.seed, node.name, "gpu", gpu.index, "sample", int(t))
    base = rng(cluster.seed, node.name, "gpu", gpu.index, "load")
    procs = processes(cluster, node, gpu, at)
    held = frozenset(r for r in gpu.clock_event_reasons if r != "Idle")
    busy = bool(procs)
    starting = _starting(cluster, node, gpu, t) if busy else None
    if starting is not None:
        # The rank holds a CUDA context but runs no kernel this second (starting up, or failing to):
        # the GPU draws a little over idle, at idle clocks, with only its context in memory until the
        # model is loaded.
        used = IDLE_USED_MIB + CONTEXT_MIB + (sum(p.used_mib for p in procs) if starting else 0)
        return Reading(
            busy=True, util_pct=0, mem_util_pct=0, mem_used_mib=min(used, H100.memory_mib - H100.reserved_mib),
            power_w=round(gpu.power_w + CONTEXT_W + jitter.uniform(-1.5, 1.5), 2),
            temp_c=gpu.temp_c + gpu.cooling_deficit_c // 3 + 1 + jitter.choice((-1, 0, 0, 1)),
            mem_temp_c=gpu.mem_temp_c + gpu.cooling_deficit_c // 3 + jitter.choice((-1, 0, 1)),
            sm_mhz=H100.idle_sm_mhz, mem_mhz=H100.max_mem_mhz, pstate="P0", reasons=frozenset({"Idle"}),
        )
    if not busy:
        temp = gpu.temp_c + gpu.cooling_deficit_c // 3 + jitter.choice((-1, 0, 0, 1))
        brake = "HW Power Brake Slowdown" in held
        sm = min(H100.idle_sm_mhz, gpu.slowdown_cap_mhz) if brake and gpu.slowdown_cap_mhz else H100.idle_sm_mhz
        reasons = frozenset({"Idle"}) | frozenset(r for r in held if r in ("HW Slowdown", "HW Power Brake Slowdown"))
        return Reading(
            busy=False, util_pct=0, mem_util_pct=0, mem_used_mib=IDLE_USED_MIB,
            power_w=round(gpu.power_w + jitter.uniform(-1.5, 1.5), 2), temp_c=temp,
            mem_temp_c=gpu.mem_temp_c + gpu.cooling_deficit_c // 3 + jitter.choice((-1, 0, 1)),
            sm_mhz=sm, mem_mhz=H100.max_mem_mhz, pstate="P0", reasons=reasons,
        )
    # Busy: the power controller holds the draw at the limit and the clock where that fits, hunting by a
    # step around it; a slowdown caps the clock lower, and power follows the clock. The controller's
    # draws come from their own source, so the other readings' noise does not depend on them.
    busy_reasons = set(held)
    natural_w = gpu.load_demand_w + jitter.uniform(-35.0, 30.0)
    hunt = rng(cluster.seed, node.name, "gpu", gpu.index, "clock", int(t))
    cap = sm_clock_under_load(gpu)
    if power_limited(gpu):
        sm = min(H100.max_sm_mhz, cap + hunt.choice((-15, 0, 0, 15)))
        power = gpu.power_limit_w - hunt.uniform(0.4, 6.0)
        busy_reasons.add("SW Power Cap")
    else:
        sm = cap if cap >= H100.max_sm_mhz else max(H100.idle_sm_mhz // 4, cap - hunt.choice((0, 0, 15, 30)))
        power = gpu.power_w + (natural_w - gpu.power_w) * (sm / H100.max_sm_mhz) ** POWER_EXPONENT
        if power >= gpu.power_limit_w - 5.0:
            power = gpu.power_limit_w - hunt.uniform(0.4, 6.0)
            busy_reasons.add("SW Power Cap")
    frac = sm / H100.max_sm_mhz
    load_temp = base.randint(57, 66) + jitter.choice((-1, 0, 0, 1))
    temp = round(gpu.temp_c + (load_temp - gpu.temp_c) * min(1.0, power / 620.0)) + gpu.cooling_deficit_c
    if held & {"HW Thermal Slowdown", "SW Thermal Slowdown"}:
        # The clock cap holds the GPU at its thermal threshold, a little past it when HW slowdown acts.
        over = -H100.slowdown_tlimit_c if "HW Thermal Slowdown" in held else 0
        temp = H100.tlimit_c + over + jitter.choice((-1, 0, 0, 1))
    mem_util = int(base.randint(38, 52) * frac ** 0.5) + jitter.randint(-3, 3)
    used = sum(p.used_mib for p in procs) + IDLE_USED_MIB + 520
    util = _util_pct(cluster, node, gpu, t, jitter.random())
    mem_util = mem_util * util // 100       # no kernel, no memory traffic
    # Power is the average over the same second: while no kernel runs the GPU draws what its context holds.
    idle_w = min(power, gpu.power_w + CONTEXT_W)
    power = idle_w + (power - idle_w) * util / 100
    return Reading(
        busy=True, util_pct=util, mem_util_pct=max(1, mem_util),
        mem_used_mib=min(used, H100.memory_mib - H100.reserved_mib), power_w=round(power, 2),
        temp_c=int(temp), mem_temp_c=int(temp) + base.randint(6, 10) + jitter.choice((0, 1)),
        sm_mhz=sm, mem_mhz=H100.max_mem_mhz, pstate="P0", reasons=frozenset(busy_reasons),
    )


def _starting(cluster: Cluster, node: Node, gpu: GPU, t: float) -> bool | None:
    """Whether the training rank on ``gpu`` runs no kernel at ``t`` because it is starting up: None when
    it runs kernels (or no rank is there), else whether its model is on the GPU yet.

    From the launch (or relaunch) until its first step a rank sets up its CUDA context, meets the others
    (torchrun's rendezvous, NCCL's communicator), loads its model and waits for its first batch; a run
    that failed at start-up never got further (a rank that waits for data later, or hangs, keeps its
    model and its clocks).
    """
    run = cluster.training
    if run is None or not any(r.node == node.name and r.gpu == gpu.index for r in run.ranks):
        return None
    if run.start_failure is not None:
        return False
    _, loaded, first_step = start_up(run)
    return t >= loaded if run.started_s <= t < first_step else None


def _util_pct(cluster: Cluster, node: Node, gpu: GPU, t: float, draw: float) -> int:
    """GPU-Util over the second before ``t``: the training rank's busy share of that second (input
    waits leave the GPU idle, so a data-bound step shows dips), 99-100 for any other busy GPU and for a
    rank's GPU that a benchmark shared then."""
    full = 100 if draw < 0.8 else 99
    run = cluster.training
    if run is not None and run.shared_at(node.name, gpu.index, t) is not None:
        return full            # the benchmark's kernels run whenever the rank's do not
    share = gpu_utilization(cluster, node.name, gpu.index, t) if cluster.training is not None else None
    return full if share is None else min(full, share)


def nvlink_errors(cluster: Cluster, link: NVLink, at: float | None = None) -> tuple[int, int, int]:
    """(replay, recovery, CRC flit) error counts of ``link`` now: the stored counts plus growth
    on a marginal link that is still up."""
    t = max(0.0, _instant(cluster, at)) if link.up else 0.0
    return (link.replay_errors + int(link.replay_rate_per_s * t), link.recovery_errors,
            link.crc_flit_errors + int(link.crc_rate_per_s * t))


#: Share of an NVLink's line rate a data-parallel training step keeps busy on average.
NVLINK_DUTY = 0.31


def nvlink_traffic_kib(cluster: Cluster, node: Node, gpu: GPU, link: NVLink) -> tuple[int, int]:
    """(tx, rx) KiB a link has carried since boot: a seeded history plus the running job's share."""
    base = rng(cluster.seed, node.name, "gpu", gpu.index, "nvlink", link.index).randrange(10**9, 4 * 10**9)
    carried = 0.0
    run = cluster.training
    if link.up and run is not None and processes(cluster, node, gpu):
        busy_s = max(0.0, cluster.clock.elapsed - run.started_s)
        carried = link.speed_gbps * 1e9 * NVLINK_DUTY * busy_s / 1024
    return base + link.tx_bytes // 1024 + int(carried), base + link.rx_bytes // 1024 + int(carried * 0.998)


def violation_s(cluster: Cluster, gpu: GPU, reason: str, at: float | None = None, node: Node | None = None) -> float:
    """Seconds ``reason`` has held the clocks down (DCGM's violation counters).

    ``gpu.violation_s`` holds the total at the clock's start; an active
    reason keeps adding simulated time. A healthy GPU whose power limit sets
    its clock under load (:func:`emulator.cluster.gpu_rates.power_limited`)
    adds ``SW Power Cap`` time while its jobs ran on it since the boot.
    """
    total = gpu.violation_s.get(reason, 0.0)
    if reason in gpu.clock_event_reasons and total > 0:
        total += max(0.0, _instant(cluster, at))
    elif reason == "SW Power Cap" and node is not None and power_limited(gpu):
        total += _busy_s(cluster, node, gpu, _instant(cluster, at))
    return total


def _busy_s(cluster: Cluster, node: Node, gpu: GPU, until: float) -> float:
    """Seconds the jobs on ``node`` kept ``gpu`` busy between the boot and ``until`` (the training run from
    its first step)."""
    boot = node.health.boots[-1].offset_s if node.health.boots else until
    run, gone = cluster.training, failed_at(cluster)
    busy = 0.0
    for job in cluster.slurm.jobs:
        if node.name not in job.nodes or job.start_s is None or gpu.index >= job.gpus_per_node:
            continue
        begin, end = job.start_s, job.end_s if job.end_s is not None else until
        if run is not None and job.job_id == run.job_id:
            if run.start_failure is not None:
                continue
            begin = max(begin, start_up(run)[2])    # its start-up ran no kernel
            if gone is not None:
                end = min(end, gone)
        busy += max(0.0, min(end, until) - max(begin, boot))
    return busy


# -- the node's power supplies ---------------------------------------------------------------

#: DGX H100: six supplies rated 3.3 kW (200-240 V, 16 A) in 4+2 redundancy, 10.2 kW maximum system
#: input; the system keeps running (slowed) with three supplies lost and needs three to boot
#: (NVIDIA DGX H100/H200 User Guide, "Power Specifications"; docs.nvidia.com/dgx/dgxh100-user-guide).
PSU_COUNT, PSU_CAPACITY_W, PSU_REDUNDANT = 6, 3300.0, 2
#: Everything but the GPUs (two Xeon 8480C, 2 TB DDR5, four NVSwitches, ten ConnectX-7, NVMe, fans,
#: conversion losses): 10.2 kW maximum - 8 x 700 W GPUs = 4.6 kW at full load [derived]; a training
#: step leaves the CPUs mostly idle, so 4.2 kW busy, and 2.0 kW with idle GPUs [assumed].
REST_BUSY_W, REST_IDLE_W = 4200.0, 2000.0
#: The redundancy sensor's states (IPMI generic event type 0Bh, as ipmitool's ipmi_sel.c spells them).
FULLY_REDUNDANT = "Fully Redundant"
REDUNDANCY_STATES = (FULLY_REDUNDANT, "Redundancy Degraded", "Redundancy Lost", "Non-Redundant: Insufficient Resources")


def system_power_w(cluster: Cluster, node: Node) -> float:
    """The node's input power now, as the BMC's Total Power reads it: the eight GPUs' draw (what
    nvidia-smi's power.draw reports) plus the rest of the system, which follows the GPUs' load."""
    bmc = node.bmc
    if bmc is not None and not bmc.power_on:
        return 0.0
    readings = [sample(cluster, node, gpu) for gpu in node.gpus if gpu.present]
    load = sum(r.util_pct for r in readings) / (100.0 * max(1, len(node.gpus)))
    return sum(r.power_w for r in readings) + REST_IDLE_W + (REST_BUSY_W - REST_IDLE_W) * load


def psus_lost(node: Node) -> int:
    """How many of the node's supplies no longer deliver (failed or without AC)."""
    bmc = node.bmc
    return 0 if bmc is None else sum(1 for s in bmc.sensors if s.name.startswith("PSU") and s.status == "cr")


def psu_redundancy(node: Node) -> str:
    """The PS Redundancy sensor's state: full with all six, degraded with one lost (one spare left),
    lost with two (exactly the four needed), insufficient with more."""
    return REDUNDANCY_STATES[min(psus_lost(node), PSU_REDUNDANT + 1)]

