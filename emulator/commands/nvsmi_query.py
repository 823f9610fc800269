"""``nvidia-smi --query-gpu`` fields and :class:`GpuView`, the sample every GPU report reads.

``--query-gpu`` here, ``-q`` and ``-q -x`` in :mod:`.nvsmi_report`: all read
the same :class:`GpuView` (the GPU, its node and one telemetry sample), so a
value shown by each of them at the same instant is the same value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cluster import telemetry
from ..cluster.catalog import H100
from ..cluster.hardware import GPU, EccCounts

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster.model import Cluster, Node

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


def _ecc_total(counts: EccCounts, corrected: bool) -> int:
    if corrected:
        return counts.sram_correctable + counts.dram_correctable
    return counts.sram_uncorrectable_parity + counts.sram_uncorrectable_secded + counts.dram_uncorrectable


# -- --query-gpu ------------------------------------------------------------------------

Getter = Callable[[GpuView], object]


def _reason(name: str) -> Getter:
    return lambda g: active(name in g.reasons)


def _ecc(volatile: bool, corrected: bool) -> Getter:
    return lambda g: _ecc_total(g.gpu.ecc_volatile if volatile else g.gpu.ecc_aggregate, corrected)


#: field → (header, unit or "", getter). Units are printed after the value unless ``nounits``.
_FIELDS: dict[str, tuple[str, str, Getter]] = {
    "timestamp": ("timestamp", "", lambda g: g.cluster.clock.now().strftime("%Y/%m/%d %H:%M:%S.")
                  + f"{int(g.cluster.clock.elapsed * 1000) % 1000:03d}"),
    "driver_version": ("driver_version", "", lambda g: g.cluster.versions.driver),
    "count": ("count", "", lambda g: len(g.node.gpus)),
    "name": ("name", "", lambda g: H100.name),
    "serial": ("serial", "", lambda g: g.gpu.serial),
    "uuid": ("uuid", "", lambda g: g.gpu.uuid),
    "pci.bus_id": ("pci.bus_id", "", lambda g: g.gpu.pci_bus_id),
    "pci.domain": ("pci.domain", "", lambda g: "0x0000"),
    "pci.bus": ("pci.bus", "", lambda g: "0x" + g.gpu.pci_bus_id.split(":")[1]),
    "pci.device_id": ("pci.device_id", "", lambda g: H100.device_id),
    "pci.sub_device_id": ("pci.sub_device_id", "", lambda g: H100.subsystem_id),
    "pcie.link.gen.current": ("pcie.link.gen.current", "", lambda g: g.gpu.pcie_gen_current),
    "pcie.link.gen.gpucurrent": ("pcie.link.gen.gpucurrent", "", lambda g: g.gpu.pcie_gen_current),
    "pcie.link.gen.max": ("pcie.link.gen.max", "", lambda g: g.gpu.pcie_gen_max),
    "pcie.link.gen.gpumax": ("pcie.link.gen.gpumax", "", lambda g: g.gpu.pcie_gen_max),
    "pcie.link.width.current": ("pcie.link.width.current", "", lambda g: g.gpu.pcie_width_current),
    "pcie.link.width.max": ("pcie.link.width.max", "", lambda g: g.gpu.pcie_width_max),
    "index": ("index", "", lambda g: g.gpu.index),
    "display_mode": ("display_mode", "", lambda g: "Disabled"),
    "display_active": ("display_active", "", lambda g: "Disabled"),
    "persistence_mode": ("persistence_mode", "", lambda g: "Enabled" if g.gpu.persistence_mode else "Disabled"),
    "accounting.mode": ("accounting.mode", "", lambda g: "Disabled"),
    "vbios_version": ("vbios_version", "", lambda g: H100.vbios),
    "inforom.img": ("inforom.img", "", lambda g: H100.inforom_img),
    "fan.speed": ("fan.speed [%]", "%", lambda g: None),
    "pstate": ("pstate", "", lambda g: g.reading.pstate),
    "clocks_event_reasons.supported": ("clocks_event_reasons.supported", "", lambda g: "0x00000000000001FF"),
    "clocks_event_reasons.active": ("clocks_event_reasons.active", "", lambda g: f"0x{g.reasons_mask:016X}"),
    "clocks_event_reasons.gpu_idle": ("clocks_event_reasons.gpu_idle", "", _reason("Idle")),
    "clocks_event_reasons.applications_clocks_setting": (
        "clocks_event_reasons.applications_clocks_setting", "", _reason("Applications Clocks Setting")),
    "clocks_event_reasons.sw_power_cap": ("clocks_event_reasons.sw_power_cap", "", _reason("SW Power Cap")),
    "clocks_event_reasons.hw_slowdown": ("clocks_event_reasons.hw_slowdown", "", _reason("HW Slowdown")),
    "clocks_event_reasons.hw_thermal_slowdown": (
        "clocks_event_reasons.hw_thermal_slowdown", "", _reason("HW Thermal Slowdown")),
    "clocks_event_reasons.hw_power_brake_slowdown": (
        "clocks_event_reasons.hw_power_brake_slowdown", "", _reason("HW Power Brake Slowdown")),
    "clocks_event_reasons.sw_thermal_slowdown": (
        "clocks_event_reasons.sw_thermal_slowdown", "", _reason("SW Thermal Slowdown")),
    "clocks_event_reasons.sync_boost": ("clocks_event_reasons.sync_boost", "", _reason("Sync Boost")),
    "memory.total": ("memory.total [MiB]", "MiB", lambda g: H100.memory_mib),
    "memory.reserved": ("memory.reserved [MiB]", "MiB", lambda g: H100.reserved_mib),
    "memory.used": ("memory.used [MiB]", "MiB", lambda g: g.reading.mem_used_mib),
    "memory.free": ("memory.free [MiB]", "MiB", lambda g: g.reading.mem_free_mib),
    "compute_mode": ("compute_mode", "", lambda g: "Default"),
    "utilization.gpu": ("utilization.gpu [%]", "%", lambda g: g.reading.util_pct),
    "utilization.memory": ("utilization.memory [%]", "%", lambda g: g.reading.mem_util_pct),
    "ecc.mode.current": ("ecc.mode.current", "", lambda g: "Enabled"),
    "ecc.mode.pending": ("ecc.mode.pending", "", lambda g: "Enabled"),
    "ecc.errors.corrected.volatile.total": ("ecc.errors.corrected.volatile.total", "", _ecc(True, True)),
    "ecc.errors.corrected.aggregate.total": ("ecc.errors.corrected.aggregate.total", "", _ecc(False, True)),
    "ecc.errors.uncorrected.volatile.total": ("ecc.errors.uncorrected.volatile.total", "", _ecc(True, False)),
    "ecc.errors.uncorrected.aggregate.total": ("ecc.errors.uncorrected.aggregate.total", "", _ecc(False, False)),
    "ecc.errors.uncorrected.volatile.dram": (
        "ecc.errors.uncorrected.volatile.dram", "", lambda g: g.gpu.ecc_volatile.dram_uncorrectable),
    "ecc.errors.uncorrected.aggregate.dram": (
        "ecc.errors.uncorrected.aggregate.dram", "", lambda g: g.gpu.ecc_aggregate.dram_uncorrectable),
    "ecc.errors.corrected.volatile.dram": (
        "ecc.errors.corrected.volatile.dram", "", lambda g: g.gpu.ecc_volatile.dram_correctable),
    "retired_pages.single_bit_ecc.count": ("retired_pages.single_bit_ecc.count", "", lambda g: None),
    "retired_pages.double_bit.count": ("retired_pages.double_bit.count", "", lambda g: None),
    "retired_pages.pending": ("retired_pages.pending", "", lambda g: None),
    "remapped_rows.correctable": ("remapped_rows.correctable", "", lambda g: g.gpu.remapped_correctable),
    "remapped_rows.uncorrectable": ("remapped_rows.uncorrectable", "", lambda g: g.gpu.remapped_uncorrectable),
    "remapped_rows.pending": ("remapped_rows.pending", "", lambda g: yes(g.gpu.remap_pending)),
    "remapped_rows.failure": ("remapped_rows.failure", "", lambda g: yes(g.gpu.remap_failure)),
    "temperature.gpu": ("temperature.gpu", "", lambda g: g.reading.temp_c),
    "temperature.gpu.tlimit": ("temperature.gpu.tlimit", "", lambda g: g.reading.tlimit_margin_c),
    "temperature.memory": ("temperature.memory", "", lambda g: g.reading.mem_temp_c),
    "power.management": ("power.management", "", lambda g: "Enabled"),
    "power.draw": ("power.draw [W]", "W", lambda g: f"{g.reading.power_w:.2f}"),
    "power.draw.instant": ("power.draw.instant [W]", "W", lambda g: f"{g.reading.power_w:.2f}"),
    "power.limit": ("power.limit [W]", "W", lambda g: f"{g.gpu.power_limit_w:.2f}"),
    "enforced.power.limit": ("enforced.power.limit [W]", "W", lambda g: f"{g.gpu.power_limit_w:.2f}"),
    "power.default_limit": ("power.default_limit [W]", "W", lambda g: f"{H100.power_limit_w:.2f}"),
    "power.min_limit": ("power.min_limit [W]", "W", lambda g: f"{H100.power_min_w:.2f}"),
    "power.max_limit": ("power.max_limit [W]", "W", lambda g: f"{H100.power_limit_w:.2f}"),
    "clocks.current.graphics": ("clocks.current.graphics [MHz]", "MHz", lambda g: g.reading.sm_mhz),
    "clocks.current.sm": ("clocks.current.sm [MHz]", "MHz", lambda g: g.reading.sm_mhz),
    "clocks.current.memory": ("clocks.current.memory [MHz]", "MHz", lambda g: g.reading.mem_mhz),
    "clocks.current.video": ("clocks.current.video [MHz]", "MHz", lambda g: g.video_mhz),
    "clocks.applications.graphics": ("clocks.applications.graphics [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.applications.memory": ("clocks.applications.memory [MHz]", "MHz", lambda g: H100.max_mem_mhz),
    "clocks.max.graphics": ("clocks.max.graphics [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.max.sm": ("clocks.max.sm [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.max.memory": ("clocks.max.memory [MHz]", "MHz", lambda g: H100.max_mem_mhz),
    "mig.mode.current": ("mig.mode.current", "", lambda g: "Disabled"),
    "fabric.state": ("fabric.state", "", lambda g: g.gpu.fabric_state),
    "fabric.status": ("fabric.status", "", lambda g: g.gpu.fabric_status),
    "reset_status.reset_required": ("reset_status.reset_required", "", lambda g: yes(g.gpu.reset_required)),
}

#: Other names nvidia-smi accepts for the same fields.
_ALIASES = {
    "gpu_name": "name", "gpu_serial": "serial", "gpu_uuid": "uuid", "gpu_bus_id": "pci.bus_id",
    "clocks.gr": "clocks.current.graphics",
    "clocks.sm": "clocks.current.sm", "clocks.mem": "clocks.current.memory",
    "clocks.video": "clocks.current.video", "clocks.max.gr": "clocks.max.graphics",
    "clocks.max.mem": "clocks.max.memory", "clocks.applications.gr": "clocks.applications.graphics",
    "clocks.applications.mem": "clocks.applications.memory", "power.draw.average": "power.draw",
}
for _name in list(_FIELDS):
    if _name.startswith("clocks_event_reasons."):
        _ALIASES[_name.replace("clocks_event_reasons.", "clocks_throttle_reasons.")] = _name
_ALIASES["clocks_throttle_reasons.active"] = "clocks_event_reasons.active"


def resolve_field(name: str) -> str | None:
    """The canonical field for ``name`` as typed, or None when nvidia-smi rejects it."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    return key if key in _FIELDS else None


def field_header(field: str) -> str:
    """The CSV header of a field; it keeps its unit even with ``nounits``."""
    return _FIELDS[field][0]


def field_value(view: GpuView, field: str, nounits: bool) -> str:
    _, unit, getter = _FIELDS[field]
    value = getter(view)
    if value is None:
        return "[N/A]"
    if unit and not nounits:
        return f"{value} {unit}"
    return str(value)
