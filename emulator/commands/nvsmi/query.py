""":class:`GpuView`: one GPU, its node and one telemetry sample, as every nvidia-smi report reads it.

``--query-gpu`` (:mod:`.nvsmi_fields`), ``-q`` and ``-q -x``
(:mod:`.nvsmi_report`) all read a :class:`GpuView`, so a value shown by each
of them at the same instant is the same value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.cluster import telemetry
from emulator.cluster.hardware import GPU, EccCounts

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: ``-d`` display types nvidia-smi accepts (the ones printed here and the rest).
DISPLAY_TYPES = ("MEMORY", "UTILIZATION", "ECC", "TEMPERATURE", "POWER", "CLOCK", "COMPUTE", "PIDS",
                 "PERFORMANCE", "SUPPORTED_CLOCKS", "PAGE_RETIREMENT", "ACCOUNTING", "ENCODER_STATS",
                 "SUPPORTED_GPU_TARGET_TEMP", "VOLTAGE", "FBC_STATS", "ROW_REMAPPER", "RESET_STATUS",
                 "GSP_FIRMWARE_VERSION")

#: Bit of each clock event reason in ``clocks_event_reasons.active`` (NVML's nvmlClocksEventReason*).
REASON_BITS = {
    "Idle": 0x1, "Applications Clocks Setting": 0x2, "SW Power Cap": 0x4, "HW Slowdown": 0x8,
    "Sync Boost": 0x10, "SW Thermal Slowdown": 0x20, "HW Thermal Slowdown": 0x40,
    "HW Power Brake Slowdown": 0x80, "Display Clock Setting": 0x100,
}


@dataclass
class GpuView:
    """A GPU, the node it sits in and a sample taken now."""

    cluster: Cluster
    node: Node
    gpu: GPU
    reading: telemetry.Reading

    @classmethod
    def of(cls, cluster: Cluster, node: Node, gpu: GPU) -> GpuView:
        return cls(cluster, node, gpu, telemetry.sample(cluster, node, gpu))

    @property
    def reasons(self) -> frozenset[str]:
        """Active clock event reasons; HW Slowdown is set with either of its sub-reasons."""
        active = set(self.reading.reasons)
        if active & {"HW Thermal Slowdown", "HW Power Brake Slowdown"}:
            active.add("HW Slowdown")
        return frozenset(active)

    @property
    def reasons_mask(self) -> int:
        return sum(REASON_BITS[r] for r in self.reasons)

    @property
    def video_mhz(self) -> int:
        return 1545 if self.reading.busy else 765

    @property
    def voltage_mv(self) -> float:
        return 890.0 if self.reading.busy else 665.0

    @property
    def bar1_used_mib(self) -> int:
        """BAR1 mapped by the processes on the GPU (1 MiB for the driver alone)."""
        if not self.reading.busy:
            return 1
        return 1 + 4 * len(telemetry.processes(self.cluster, self.node, self.gpu))

    @property
    def pcie_kbps(self) -> tuple[int, int]:
        """PCIe (Tx, Rx) throughput in KB/s."""
        if not self.reading.busy:
            return 632, 531
        return 412_000 + 2_000 * self.gpu.index, 1_804_000 + 3_000 * self.gpu.index


def active(flag: bool) -> str:
    return "Active" if flag else "Not Active"


def yes(flag: bool) -> str:
    return "Yes" if flag else "No"


def ecc_total(counts: EccCounts, corrected: bool) -> int:
    if corrected:
        return counts.sram_correctable + counts.dram_correctable
    return counts.sram_uncorrectable_parity + counts.sram_uncorrectable_secded + counts.dram_uncorrectable
