"""``nvidia-smi -q`` and ``--query-gpu``: one GPU's state as driver 550 prints it.

Both views read the same :class:`GpuView` (the GPU, its node and one
telemetry sample), so a value shown by ``-q`` and by ``--query-gpu`` at the
same instant is the same value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cluster import telemetry
from ..cluster.catalog import H100
from ..cluster.hardware import CLOCK_EVENT_REASONS, GPU, EccCounts

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


def _active(flag: bool) -> str:
    return "Active" if flag else "Not Active"


def _yes(flag: bool) -> str:
    return "Yes" if flag else "No"


def _ecc_total(counts: EccCounts, corrected: bool) -> int:
    if corrected:
        return counts.sram_correctable + counts.dram_correctable
    return counts.sram_uncorrectable_parity + counts.sram_uncorrectable_secded + counts.dram_uncorrectable


# -- nvidia-smi -q --------------------------------------------------------------------


class _Report:
    """Lines of the ``-q`` report: ``name : value`` with the colon at column 42."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def kv(self, depth: int, name: str, value: object) -> None:
        self.lines.append(f"{'    ' * depth}{name}".ljust(42) + f": {value}")

    def head(self, depth: int, name: str) -> None:
        self.lines.append(f"{'    ' * depth}{name}")


def report_header(cluster: Cluster, node: Node, timestamp: str) -> list[str]:
    v = cluster.versions
    rep = _Report()
    rep.lines += ["==============NVSMI LOG==============", ""]
    rep.kv(0, "Timestamp", timestamp)
    rep.kv(0, "Driver Version", v.driver)
    rep.kv(0, "CUDA Version", v.cuda)
    rep.lines.append("")
    rep.kv(0, "Attached GPUs", len(node.gpus))
    return rep.lines


def report_gpu(view: GpuView, sections: set[str] | None) -> list[str]:
    """The ``GPU <bus id>`` block; ``sections`` limits it to the ``-d`` types."""
    gpu, r = view.gpu, view.reading
    rep = _Report()
    rep.head(0, f"GPU {gpu.pci_bus_id}")

    def want(name: str) -> bool:
        return sections is None or name in sections

    if sections is None:
        _identity(rep, view)
    if sections is not None and "RESET_STATUS" in sections:
        rep.head(1, "GPU Reset Status")
        rep.kv(2, "Reset Required", _yes(gpu.reset_required))
        rep.kv(2, "Drain and Reset Recommended", _yes(gpu.reset_required or gpu.remap_failure))
    if sections is not None and "GSP_FIRMWARE_VERSION" in sections:
        rep.kv(1, "GSP Firmware Version", view.cluster.versions.driver)
    if want("PERFORMANCE"):
        if sections is None:
            rep.kv(1, "Fan Speed", "N/A")
        rep.kv(1, "Performance State", r.pstate)
        rep.head(1, "Clocks Event Reasons")
        reasons = view.reasons
        for reason in CLOCK_EVENT_REASONS:
            depth = 3 if reason in ("HW Thermal Slowdown", "HW Power Brake Slowdown") else 2
            rep.kv(depth, reason, _active(reason in reasons))
        if sections is None:
            rep.kv(1, "Sparse Operation Mode", "Disabled")
    if want("MEMORY"):
        rep.head(1, "FB Memory Usage")
        rep.kv(2, "Total", f"{H100.memory_mib} MiB")
        rep.kv(2, "Reserved", f"{H100.reserved_mib} MiB")
        rep.kv(2, "Used", f"{r.mem_used_mib} MiB")
        rep.kv(2, "Free", f"{r.mem_free_mib} MiB")
        rep.head(1, "BAR1 Memory Usage")
        bar1_used = 1 if not r.busy else 1 + 4 * len(telemetry.processes(view.cluster, view.node, gpu))
        rep.kv(2, "Total", f"{H100.bar1_mib} MiB")
        rep.kv(2, "Used", f"{bar1_used} MiB")
        rep.kv(2, "Free", f"{H100.bar1_mib - bar1_used} MiB")
        rep.head(1, "Conf Compute Protected Memory Usage")
        for name in ("Total", "Used", "Free"):
            rep.kv(2, name, "0 MiB")
    if want("COMPUTE"):
        rep.kv(1, "Compute Mode", "Default")
    if want("UTILIZATION"):
        rep.head(1, "Utilization")
        rep.kv(2, "Gpu", f"{r.util_pct} %")
        rep.kv(2, "Memory", f"{r.mem_util_pct} %")
        for name in ("Encoder", "Decoder", "JPEG", "OFA"):
            rep.kv(2, name, "0 %")
    if want("ENCODER_STATS"):
        rep.head(1, "Encoder Stats")
        for name in ("Active Sessions", "Average FPS", "Average Latency"):
            rep.kv(2, name, 0)
    if want("FBC_STATS"):
        rep.head(1, "FBC Stats")
        for name in ("Active Sessions", "Average FPS", "Average Latency"):
            rep.kv(2, name, 0)
    if want("ECC"):
        rep.head(1, "ECC Mode")
        rep.kv(2, "Current", "Enabled")
        rep.kv(2, "Pending", "Enabled")
        rep.head(1, "ECC Errors")
        for title, counts in (("Volatile", gpu.ecc_volatile), ("Aggregate", gpu.ecc_aggregate)):
            rep.head(2, title)
            rep.kv(3, "SRAM Correctable", counts.sram_correctable)
            rep.kv(3, "SRAM Uncorrectable Parity", counts.sram_uncorrectable_parity)
            rep.kv(3, "SRAM Uncorrectable SEC-DED", counts.sram_uncorrectable_secded)
            rep.kv(3, "DRAM Correctable", counts.dram_correctable)
            rep.kv(3, "DRAM Uncorrectable", counts.dram_uncorrectable)
        agg = gpu.ecc_aggregate
        sram_unc = agg.sram_uncorrectable_parity + agg.sram_uncorrectable_secded
        rep.kv(3, "SRAM Threshold Exceeded", _yes(sram_unc > 4))
        rep.head(2, "Aggregate Uncorrectable SRAM Sources")
        rep.kv(3, "SRAM L2", sram_unc)
        for name in ("SRAM SM", "SRAM Microcontroller", "SRAM PCIE", "SRAM Other"):
            rep.kv(3, name, 0)
    if want("PAGE_RETIREMENT"):
        rep.head(1, "Retired Pages")
        rep.kv(2, "Single Bit ECC", "N/A")
        rep.kv(2, "Double Bit ECC", "N/A")
        rep.kv(2, "Pending Page Blacklist", "N/A")
    if want("ROW_REMAPPER") or want("PAGE_RETIREMENT"):
        _remapped_rows(rep, gpu)
    if want("TEMPERATURE"):
        rep.head(1, "Temperature")
        rep.kv(2, "GPU Current Temp", f"{r.temp_c} C")
        rep.kv(2, "GPU T.Limit Temp", f"{r.tlimit_margin_c} C")
        rep.kv(2, "GPU Shutdown T.Limit Temp", f"{H100.shutdown_tlimit_c} C")
        rep.kv(2, "GPU Slowdown T.Limit Temp", f"{H100.slowdown_tlimit_c} C")
        rep.kv(2, "GPU Max Operating T.Limit Temp", "0 C")
        rep.kv(2, "GPU Target Temperature", "N/A")
        rep.kv(2, "Memory Current Temp", f"{r.mem_temp_c} C")
        rep.kv(2, "Memory Max Operating T.Limit Temp", "0 C")
    if want("POWER"):
        rep.head(1, "GPU Power Readings")
        rep.kv(2, "Power Draw", f"{r.power_w:.2f} W")
        rep.kv(2, "Current Power Limit", f"{gpu.power_limit_w:.2f} W")
        rep.kv(2, "Requested Power Limit", f"{gpu.power_limit_w:.2f} W")
        rep.kv(2, "Default Power Limit", f"{H100.power_limit_w:.2f} W")
        rep.kv(2, "Min Power Limit", f"{H100.power_min_w:.2f} W")
        rep.kv(2, "Max Power Limit", f"{H100.power_limit_w:.2f} W")
        rep.head(1, "GPU Memory Power Readings ")
        rep.kv(2, "Power Draw", "N/A")
        rep.head(1, "Module Power Readings")
        for name in ("Power Draw", "Current Power Limit", "Requested Power Limit", "Default Power Limit",
                     "Min Power Limit", "Max Power Limit"):
            rep.kv(2, name, "N/A")
    if want("CLOCK"):
        rep.head(1, "Clocks")
        rep.kv(2, "Graphics", f"{r.sm_mhz} MHz")
        rep.kv(2, "SM", f"{r.sm_mhz} MHz")
        rep.kv(2, "Memory", f"{r.mem_mhz} MHz")
        rep.kv(2, "Video", f"{1545 if r.busy else 765} MHz")
        rep.head(1, "Applications Clocks")
        rep.kv(2, "Graphics", f"{H100.max_sm_mhz} MHz")
        rep.kv(2, "Memory", f"{H100.max_mem_mhz} MHz")
        rep.head(1, "Default Applications Clocks")
        rep.kv(2, "Graphics", f"{H100.max_sm_mhz} MHz")
        rep.kv(2, "Memory", f"{H100.max_mem_mhz} MHz")
        rep.head(1, "Deferred Clocks")
        rep.kv(2, "Memory", "N/A")
        rep.head(1, "Max Clocks")
        rep.kv(2, "Graphics", f"{H100.max_sm_mhz} MHz")
        rep.kv(2, "SM", f"{H100.max_sm_mhz} MHz")
        rep.kv(2, "Memory", f"{H100.max_mem_mhz} MHz")
        rep.kv(2, "Video", f"{H100.max_video_mhz} MHz")
        rep.head(1, "Max Customer Boost Clocks")
        rep.kv(2, "Graphics", f"{H100.max_sm_mhz} MHz")
        rep.head(1, "Clock Policy")
        rep.kv(2, "Auto Boost", "N/A")
        rep.kv(2, "Auto Boost Default", "N/A")
    if want("VOLTAGE"):
        rep.head(1, "Voltage")
        rep.kv(2, "Graphics", f"{890.0 if r.busy else 665.0:.3f} mV")
    if sections is None:
        rep.head(1, "Fabric")
        rep.kv(2, "State", gpu.fabric_state)
        rep.kv(2, "Status", gpu.fabric_status)
        rep.kv(2, "CliqueId", "N/A")
        rep.kv(2, "ClusterUUID", "N/A")
        rep.head(2, "Health")
        rep.kv(3, "Bandwidth", "N/A")
    if sections is not None and "SUPPORTED_CLOCKS" in sections:
        rep.head(1, "Supported Clocks")
        rep.kv(2, "Memory", f"{H100.max_mem_mhz} MHz")
        for mhz in range(H100.max_sm_mhz, H100.idle_sm_mhz - 1, -15):
            rep.kv(3, "Graphics", f"{mhz} MHz")
    if sections is not None and "SUPPORTED_GPU_TARGET_TEMP" in sections:
        rep.head(1, "Supported GPU Target Temp")
        rep.kv(2, "GPU Target Temp Min", "N/A")
        rep.kv(2, "GPU Target Temp Max", "N/A")
    if sections is not None and "ACCOUNTING" in sections:
        rep.kv(1, "Accounting Mode", "Disabled")
        rep.kv(1, "Accounting Mode Buffer Size", 4000)
        rep.kv(1, "Accounted Processes", "None")
    if want("PIDS"):
        procs = telemetry.processes(view.cluster, view.node, gpu)
        if not procs:
            rep.kv(1, "Processes", "None")
        else:
            rep.head(1, "Processes")
            for proc in procs:
                rep.kv(2, "GPU instance ID", "N/A")
                rep.kv(2, "Compute instance ID", "N/A")
                rep.kv(2, "Process ID", proc.pid)
                rep.kv(3, "Type", "C")
                rep.kv(3, "Name", proc.name)
                rep.kv(3, "Used GPU Memory", f"{proc.used_mib} MiB")
    return rep.lines


def _remapped_rows(rep: _Report, gpu: GPU) -> None:
    rep.head(1, "Remapped Rows")
    rep.kv(2, "Correctable Error", gpu.remapped_correctable)
    rep.kv(2, "Uncorrectable Error", gpu.remapped_uncorrectable)
    rep.kv(2, "Pending", _yes(gpu.remap_pending))
    rep.kv(2, "Remapping Failure Occurred", _yes(gpu.remap_failure))
    rep.head(2, "Bank Remap Availability Histogram")
    used = gpu.remapped_correctable + gpu.remapped_uncorrectable
    rep.kv(3, "Max", f"{max(0, gpu.remap_available_banks - used)} bank(s)")
    rep.kv(3, "High", f"{min(used, gpu.remap_available_banks)} bank(s)")
    for name in ("Partial", "Low", "None"):
        rep.kv(3, name, "0 bank(s)")


def _identity(rep: _Report, view: GpuView) -> None:
    gpu, v = view.gpu, view.cluster.versions
    bus = int(gpu.pci_bus_id.split(":")[1], 16)
    rep.kv(1, "Product Name", H100.name)
    rep.kv(1, "Product Brand", H100.product_brand)
    rep.kv(1, "Product Architecture", H100.architecture)
    rep.kv(1, "Display Mode", "Disabled")
    rep.kv(1, "Display Active", "Disabled")
    rep.kv(1, "Persistence Mode", "Enabled" if gpu.persistence_mode else "Disabled")
    rep.kv(1, "Addressing Mode", "None")
    rep.head(1, "MIG Mode")
    rep.kv(2, "Current", "Disabled")
    rep.kv(2, "Pending", "Disabled")
    rep.kv(1, "Accounting Mode", "Disabled")
    rep.kv(1, "Accounting Mode Buffer Size", 4000)
    rep.head(1, "Driver Model")
    rep.kv(2, "Current", "N/A")
    rep.kv(2, "Pending", "N/A")
    rep.kv(1, "Serial Number", gpu.serial)
    rep.kv(1, "GPU UUID", gpu.uuid)
    rep.kv(1, "Minor Number", gpu.minor)
    rep.kv(1, "VBIOS Version", H100.vbios)
    rep.kv(1, "MultiGPU Board", "No")
    rep.kv(1, "Board ID", f"0x{bus:x}00")
    rep.kv(1, "Board Part Number", H100.board_part)
    rep.kv(1, "GPU Part Number", "2330-885-A1")
    rep.kv(1, "FRU Part Number", "N/A")
    rep.kv(1, "Module ID", (3, 1, 4, 2, 7, 5, 8, 6)[gpu.index % 8])
    rep.head(1, "Inforom Version")
    rep.kv(2, "Image Version", H100.inforom_img)
    rep.kv(2, "OEM Object", "2.1")
    rep.kv(2, "ECC Object", "7.16")
    rep.kv(2, "Power Management Object", "N/A")
    rep.head(1, "Inforom BBX Object Flush")
    boot = view.node.health.boots[-1].offset_s if view.node.health.boots else 0.0
    flushed = view.cluster.clock.at(boot + 3600.0 * int((view.cluster.clock.elapsed - boot) // 3600.0))
    rep.kv(2, "Latest Timestamp", flushed.strftime("%Y/%m/%d %H:%M:%S.") + f"{(gpu.index * 97) % 1000:03d}")
    rep.kv(2, "Latest Duration", f"{88000 + gpu.index * 311} us")
    rep.head(1, "GPU Operation Mode")
    rep.kv(2, "Current", "N/A")
    rep.kv(2, "Pending", "N/A")
    rep.kv(1, "GPU C2C Mode", "N/A")
    rep.head(1, "GPU Virtualization Mode")
    rep.kv(2, "Virtualization Mode", "None")
    rep.kv(2, "Host VGPU Mode", "N/A")
    rep.kv(2, "vGPU Heterogeneous Mode", "N/A")
    rep.head(1, "GPU Reset Status")
    rep.kv(2, "Reset Required", _yes(gpu.reset_required))
    rep.kv(2, "Drain and Reset Recommended", _yes(gpu.reset_required or gpu.remap_failure))
    rep.kv(1, "GSP Firmware Version", v.driver)
    rep.head(1, "IBMNPU")
    rep.kv(2, "Relaxed Ordering Mode", "N/A")
    rep.head(1, "PCI")
    rep.kv(2, "Bus", f"0x{bus:02X}")
    rep.kv(2, "Device", "0x00")
    rep.kv(2, "Domain", "0x0000")
    rep.kv(2, "Base Classcode", "0x3")
    rep.kv(2, "Sub Classcode", "0x2")
    rep.kv(2, "Device Id", H100.device_id)
    rep.kv(2, "Bus Id", gpu.pci_bus_id)
    rep.kv(2, "Sub System Id", H100.subsystem_id)
    rep.head(2, "GPU Link Info")
    rep.head(3, "PCIe Generation")
    rep.kv(4, "Max", gpu.pcie_gen_max)
    rep.kv(4, "Current", gpu.pcie_gen_current)
    rep.kv(4, "Device Current", gpu.pcie_gen_current)
    rep.kv(4, "Device Max", gpu.pcie_gen_max)
    rep.kv(4, "Host Max", gpu.pcie_gen_max)
    rep.head(3, "Link Width")
    rep.kv(4, "Max", f"{gpu.pcie_width_max}x")
    rep.kv(4, "Current", f"{gpu.pcie_width_current}x")
    rep.head(2, "Bridge Chip")
    rep.kv(3, "Type", "N/A")
    rep.kv(3, "Firmware", "N/A")
    rep.kv(2, "Replays Since Reset", 0)
    rep.kv(2, "Replay Number Rollovers", 0)
    tx, rx = (412_000 + 2_000 * gpu.index, 1_804_000 + 3_000 * gpu.index) if view.reading.busy else (632, 531)
    rep.kv(2, "Tx Throughput", f"{tx} KB/s")
    rep.kv(2, "Rx Throughput", f"{rx} KB/s")
    rep.kv(2, "Atomic Caps Inbound", "N/A")
    rep.kv(2, "Atomic Caps Outbound", "N/A")


# -- --query-gpu ------------------------------------------------------------------------

Getter = Callable[[GpuView], object]


def _reason(name: str) -> Getter:
    return lambda g: _active(name in g.reasons)


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
    "remapped_rows.pending": ("remapped_rows.pending", "", lambda g: _yes(g.gpu.remap_pending)),
    "remapped_rows.failure": ("remapped_rows.failure", "", lambda g: _yes(g.gpu.remap_failure)),
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
    "clocks.current.video": ("clocks.current.video [MHz]", "MHz", lambda g: 1545 if g.reading.busy else 765),
    "clocks.applications.graphics": ("clocks.applications.graphics [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.applications.memory": ("clocks.applications.memory [MHz]", "MHz", lambda g: H100.max_mem_mhz),
    "clocks.max.graphics": ("clocks.max.graphics [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.max.sm": ("clocks.max.sm [MHz]", "MHz", lambda g: H100.max_sm_mhz),
    "clocks.max.memory": ("clocks.max.memory [MHz]", "MHz", lambda g: H100.max_mem_mhz),
    "mig.mode.current": ("mig.mode.current", "", lambda g: "Disabled"),
    "fabric.state": ("fabric.state", "", lambda g: g.gpu.fabric_state),
    "fabric.status": ("fabric.status", "", lambda g: g.gpu.fabric_status),
    "reset_status.reset_required": ("reset_status.reset_required", "", lambda g: _yes(g.gpu.reset_required)),
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
