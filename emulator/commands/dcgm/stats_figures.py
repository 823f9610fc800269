"""The figures ``dcgmi stats`` reports for one GPU over a span, and their summary over several GPUs.

Power, clocks, utilisation and memory come from telemetry samples every 30 s
(at most 60 per GPU), energy from the mean power, Xid events from the kernel
log of the GPU's bus, slowdown time from the GPU's active clock event
reasons, health from the model's findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.cluster import telemetry
from emulator.cluster.hardware import GPU
from emulator.cluster.health import health_findings
from emulator.cluster.model import Node
from emulator.commands.kit.command import Context

#: Seconds between the watches' samples (``-u`` default), and the most samples read per GPU.
UPDATE_S, MAX_SAMPLES = 30.0, 60

#: Field lookup: an Xid kernel line names the GPU's bus and the code.
XID_LINE = re.compile(r"NVRM: Xid \(PCI:0000:([0-9a-fA-F]{2}):00\): (\d+),")


HEALTH_NAMES = {"PCIe system": "PCIE Health", "Memory system": "Mem Health", "NVLink system": "NVLink Health",
                "Thermal system": "Thermal Health", "Power system": "Power Health"}


@dataclass
class GpuStats:
    """What DCGM's ``dcgmGpuUsageInfo_t`` holds for one GPU (or the summary of several)."""

    gpu_id: int
    start: float
    end: float | None
    energy_j: int = 0
    power: tuple[float, float, float] = (0.0, 0.0, 0.0)    # avg, max, min
    max_memory_bytes: int = 0
    sm_mhz: tuple[int, int, int] = (0, 0, 0)
    mem_mhz: tuple[int, int, int] = (0, 0, 0)
    sm_util: tuple[int, int, int] = (0, 0, 0)
    mem_util: tuple[int, int, int] = (0, 0, 0)
    sbe: int = 0
    dbe: int = 0
    xid_times: list[float] = field(default_factory=list)   # seconds after the start
    violation_pct: dict[str, float] = field(default_factory=dict)
    pids: list[tuple[int, int, int]] = field(default_factory=list)  # pid, avg SM %, avg memory %
    #: The samples each compute process was seen in: pid → (offset, reading).
    seen: dict[int, list[tuple[float, telemetry.Reading]]] = field(default_factory=dict)
    health: str = "Healthy"
    incidents: list[tuple[str, str]] = field(default_factory=list)
    #: Whether any sample was read (a GPU off the bus answers none: its figures print N/A).
    sampled: bool = False


def _triple(values: list[int]) -> tuple[int, int, int]:
    return (round(sum(values) / len(values)), max(values), min(values)) if values else (0, 0, 0)


def _active_since(gpu: GPU, reason: str) -> float | None:
    """When ``reason`` began holding the clocks: it has held them ``violation_s`` seconds at the clock's start."""
    total = gpu.violation_s.get(reason, 0.0)
    return -total if reason in gpu.clock_event_reasons and total > 0 else None


def _overlap(since: float | None, start: float, end: float) -> float:
    return 0.0 if since is None else max(0.0, end - max(start, since))


def gpu_stats(ctx: Context, node: Node, gpu: GPU, start: float, end: float | None) -> GpuStats:
    """``gpu`` from ``start`` to ``end`` (None: still running), sampled as the watches sample it."""

    stop = ctx.clock.elapsed if end is None else end
    span = max(stop - start, 1e-6)
    step = max(UPDATE_S, span / MAX_SAMPLES)
    times = [start + step * k for k in range(int(span // step) + 1)] if gpu.present else []
    samples = [telemetry.sample(ctx.cluster, node, gpu, at=t) for t in times]
    stats = GpuStats(gpu.index, start, end)
    for t, reading in zip(times, samples, strict=True):
        for proc in telemetry.processes(ctx.cluster, node, gpu, at=t):
            stats.seen.setdefault(proc.pid, []).append((t, reading))
    if samples:
        stats.sampled = True
        watts = [r.power_w for r in samples]
        stats.power = (sum(watts) / len(watts), max(watts), min(watts))
        stats.energy_j = int(stats.power[0] * span)
        stats.max_memory_bytes = max(r.mem_used_mib for r in samples) * 1024 * 1024
        stats.sm_mhz = _triple([r.sm_mhz for r in samples])
        stats.mem_mhz = _triple([r.mem_mhz for r in samples])
        stats.sm_util = _triple([r.util_pct for r in samples])
        stats.mem_util = _triple([r.mem_util_pct for r in samples])
        # Clocks held at idle: no job, or a job's ranks starting up (a context, no kernel yet).
        idle = sum(1 for r in samples if "Idle" in r.reasons) / len(samples)
        stats.violation_pct["Low Utilization"] = 100.0 * idle
    bus = gpu.pci_bus_id[9:11].lower()
    for event in node.hw.kernel_log:
        match = XID_LINE.search(event.text)
        if match and match.group(1).lower() == bus and start <= event.offset_s <= stop:
            stats.xid_times.append(event.offset_s - start)
            stats.dbe += match.group(2) == "48"
    power = sum(_overlap(_active_since(gpu, r), start, stop) for r in ("SW Power Cap", "HW Power Brake Slowdown"))
    thermal = _overlap(_active_since(gpu, "HW Thermal Slowdown"), start, stop)
    # A GPU held at its power limit under load (the healthy case in dense training) is in power
    # violation in every such sample, whether or not a fault lowered the limit.
    capped = sum(1 for r in samples if r.reasons & {"SW Power Cap", "HW Power Brake Slowdown"}) / max(1, len(samples))
    stats.violation_pct["Power"] = min(100.0, max(100.0 * power / span, 100.0 * capped))
    stats.violation_pct["Thermal"] = 100.0 * thermal / span
    for pid, readings in stats.seen.items():
        stats.pids.append((pid, round(sum(r.util_pct for _, r in readings) / len(readings)),
                           round(sum(r.mem_util_pct for _, r in readings) / len(readings))))
    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    for found_gpu, system, severity, _ in health_findings(node):
        if found_gpu is gpu:
            stats.incidents.append((HEALTH_NAMES.get(system, system), severity))
            stats.health = max(stats.health, severity, key=order.__getitem__)
    return stats


def summary(per_gpu: list[GpuStats], start: float, end: float | None) -> GpuStats:
    """The summary DCGM prints without ``-v``: sums, the mean of the means, the extremes."""
    total = GpuStats(-1, start, end)
    per_gpu = [s for s in per_gpu if s.sampled] or per_gpu
    if not per_gpu:
        return total
    total.sampled = any(s.sampled for s in per_gpu)
    order = {"Healthy": 0, "Warning": 1, "Failure": 2}
    total.energy_j = sum(s.energy_j for s in per_gpu)
    total.power = (sum(s.power[0] for s in per_gpu) / len(per_gpu), max(s.power[1] for s in per_gpu),
                   min(s.power[2] for s in per_gpu))
    total.max_memory_bytes = max(s.max_memory_bytes for s in per_gpu)
    total.sbe = sum(s.sbe for s in per_gpu)
    total.dbe = sum(s.dbe for s in per_gpu)
    total.xid_times = sorted(t for s in per_gpu for t in s.xid_times)
    for key in ("Power", "Thermal", "Low Utilization"):
        total.violation_pct[key] = max(s.violation_pct.get(key, 0.0) for s in per_gpu)
    total.pids = [p for s in per_gpu for p in s.pids]
    total.health = max((s.health for s in per_gpu), key=order.__getitem__)
    return total
