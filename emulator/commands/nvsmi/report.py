"""``nvidia-smi -q`` and ``nvidia-smi -q -x``: one tree of a GPU's state, two renderings.

:func:`gpu_entries` builds the report once from a :class:`GpuView`; every
item carries both its ``-q`` label and its XML element name
(``nvsmi_device_v12.dtd``), so the text report and the XML log print the same
values at the same instant. :func:`text_lines` renders the ``name : value``
report, :func:`xml_log` the ``<nvidia_smi_log>`` document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import CLOCK_EVENT_REASONS, GPU, EccCounts
from emulator.commands.nvsmi.query import GpuView, active, yes

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: Where an entry appears: the full ``-q`` text, the ``-q -d TYPE`` text, the XML log.
FULL, DISPLAY, XML = "full", "display", "xml"
EVERYWHERE = frozenset((FULL, DISPLAY, XML))
FULL_ONLY = frozenset((FULL, XML))
DISPLAY_ONLY = frozenset((DISPLAY,))
XML_ONLY = frozenset((XML,))

#: XML element of each clock event reason.
REASON_TAGS = {
    "Idle": "gpu_idle", "Applications Clocks Setting": "applications_clocks_setting",
    "SW Power Cap": "sw_power_cap", "HW Slowdown": "hw_slowdown", "HW Thermal Slowdown": "hw_thermal_slowdown",
    "HW Power Brake Slowdown": "hw_power_brake_slowdown", "Sync Boost": "sync_boost",
    "SW Thermal Slowdown": "sw_thermal_slowdown", "Display Clock Setting": "display_clocks_setting",
}


@dataclass
class Item:
    """A value (``value`` set) or a group (``children`` set) of the report.

    ``label`` is the ``-q`` name (None: the group is transparent in text, its
    children print at its own depth); ``tag`` the XML element (None: text
    only). ``indent`` pushes the text line deeper than the tree depth;
    ``xml_value`` replaces the value in XML where the two forms differ.
    """

    label: str | None
    tag: str | None
    value: object = None
    children: list[Item] | None = None
    indent: int = 0
    xml_value: object = None
    only: str = ""  # "text" or "xml" when the item belongs to one rendering


def leaf(label: str | None, tag: str | None, value: object, **kw: object) -> Item:
    return Item(label, tag, value, **kw)  # type: ignore[arg-type]


def group(label: str | None, tag: str | None, *children: Item, **kw: object) -> Item:
    return Item(label, tag, None, list(children), **kw)  # type: ignore[arg-type]


@dataclass
class Entry:
    """A top-level item, the ``-d`` display type it belongs to, and where it appears."""

    item: Item
    display: str  # ``-d`` types, space separated
    where: frozenset[str] = field(default=EVERYWHERE)


# -- the tree ---------------------------------------------------------------------------


def gpu_entries(view: GpuView) -> list[Entry]:
    """Every item of one GPU's report, in the order nvidia-smi prints them."""
    gpu, r = view.gpu, view.reading
    entries = [Entry(item, "", FULL_ONLY) for item in _identity(view)]
    entries[_index(entries, "gpu_reset_status")].display = "RESET_STATUS"
    entries[_index(entries, "gpu_reset_status")].where = EVERYWHERE
    entries[_index(entries, "gsp_firmware_version")].display = "GSP_FIRMWARE_VERSION"
    entries[_index(entries, "gsp_firmware_version")].where = EVERYWHERE
    reasons = view.reasons
    entries += [
        Entry(leaf("Fan Speed", "fan_speed", "N/A"), "PERFORMANCE", FULL_ONLY),
        Entry(leaf("Performance State", "performance_state", r.pstate), "PERFORMANCE"),
        Entry(group("Clocks Event Reasons", "clocks_event_reasons", *(
            leaf(reason, f"clocks_event_reason_{REASON_TAGS[reason]}", active(reason in reasons),
                 indent=1 if reason in ("HW Thermal Slowdown", "HW Power Brake Slowdown") else 0)
            for reason in CLOCK_EVENT_REASONS)), "PERFORMANCE"),
        Entry(leaf("Sparse Operation Mode", "sparse_operation_mode", "Disabled"), "PERFORMANCE", FULL_ONLY),
        Entry(group("FB Memory Usage", "fb_memory_usage",
                    leaf("Total", "total", f"{H100.memory_mib} MiB"),
                    leaf("Reserved", "reserved", f"{H100.reserved_mib} MiB"),
                    leaf("Used", "used", f"{r.mem_used_mib} MiB"),
                    leaf("Free", "free", f"{r.mem_free_mib} MiB")), "MEMORY"),
        Entry(group("BAR1 Memory Usage", "bar1_memory_usage",
                    leaf("Total", "total", f"{H100.bar1_mib} MiB"),
                    leaf("Used", "used", f"{view.bar1_used_mib} MiB"),
                    leaf("Free", "free", f"{H100.bar1_mib - view.bar1_used_mib} MiB")), "MEMORY"),
        Entry(group("Conf Compute Protected Memory Usage", "cc_protected_memory_usage",
                    *(leaf(n, n.lower(), "0 MiB") for n in ("Total", "Used", "Free"))), "MEMORY"),
        Entry(leaf("Compute Mode", "compute_mode", "Default"), "COMPUTE"),
        Entry(group("Utilization", "utilization",
                    leaf("Gpu", "gpu_util", f"{r.util_pct} %"),
                    leaf("Memory", "memory_util", f"{r.mem_util_pct} %"),
                    *(leaf(n, f"{n.lower()}_util", "0 %") for n in ("Encoder", "Decoder", "JPEG", "OFA"))),
              "UTILIZATION"),
        Entry(_session_stats("Encoder Stats", "encoder_stats"), "ENCODER_STATS"),
        Entry(_session_stats("FBC Stats", "fbc_stats"), "FBC_STATS"),
        Entry(group("ECC Mode", "ecc_mode", leaf("Current", "current_ecc", "Enabled"),
                    leaf("Pending", "pending_ecc", "Enabled")), "ECC"),
        Entry(_ecc_errors(gpu), "ECC"),
        Entry(leaf("Retired Pages", None, None, only="text"), "PAGE_RETIREMENT"),
        Entry(leaf("Single Bit ECC", None, "N/A", indent=1), "PAGE_RETIREMENT"),
        Entry(leaf("Double Bit ECC", None, "N/A", indent=1), "PAGE_RETIREMENT"),
        Entry(leaf("Pending Page Blacklist", None, "N/A", indent=1), "PAGE_RETIREMENT"),
        Entry(_retired_pages_xml(), "PAGE_RETIREMENT", XML_ONLY),
        Entry(_remapped_rows(gpu), "ROW_REMAPPER PAGE_RETIREMENT"),
        Entry(group("Temperature", "temperature",
                    leaf("GPU Current Temp", "gpu_temp", f"{r.temp_c} C"),
                    leaf("GPU T.Limit Temp", "gpu_temp_tlimit", f"{r.tlimit_margin_c} C"),
                    leaf("GPU Shutdown T.Limit Temp", "gpu_temp_max_tlimit_threshold", f"{H100.shutdown_tlimit_c} C"),
                    leaf("GPU Slowdown T.Limit Temp", "gpu_temp_slow_tlimit_threshold", f"{H100.slowdown_tlimit_c} C"),
                    leaf("GPU Max Operating T.Limit Temp", "gpu_temp_max_gpu_tlimit_threshold", "0 C"),
                    leaf("GPU Target Temperature", "gpu_target_temperature", "N/A"),
                    leaf("Memory Current Temp", "memory_temp", f"{r.mem_temp_c} C"),
                    leaf("Memory Max Operating T.Limit Temp", "gpu_temp_max_mem_tlimit_threshold", "0 C")),
              "TEMPERATURE"),
        Entry(_target_temp(), "SUPPORTED_GPU_TARGET_TEMP", XML_ONLY),
        Entry(group("GPU Power Readings", "gpu_power_readings",
                    leaf(None, "power_state", r.pstate, only="xml"),
                    leaf("Power Draw", "power_draw", f"{r.power_w:.2f} W"),
                    *_limits(f"{gpu.power_limit_w:.2f} W", f"{gpu.power_limit_w:.2f} W",
                             f"{H100.power_limit_w:.2f} W", f"{H100.power_min_w:.2f} W",
                             f"{H100.power_limit_w:.2f} W")), "POWER"),
        Entry(group("GPU Memory Power Readings ", "gpu_memory_power_readings",
                    leaf("Power Draw", "power_draw", "N/A")), "POWER"),
        Entry(group("Module Power Readings", "module_power_readings",
                    leaf(None, "power_state", r.pstate, only="xml"),
                    leaf("Power Draw", "power_draw", "N/A"), *_limits(*["N/A"] * 5)), "POWER"),
        Entry(group("Clocks", "clocks", *_clocks(r.sm_mhz, r.sm_mhz, r.mem_mhz, view.video_mhz)), "CLOCK"),
        Entry(group("Applications Clocks", "applications_clocks",
                    *_clocks(H100.max_sm_mhz, None, H100.max_mem_mhz, None)), "CLOCK"),
        Entry(group("Default Applications Clocks", "default_applications_clocks",
                    *_clocks(H100.max_sm_mhz, None, H100.max_mem_mhz, None)), "CLOCK"),
        Entry(group("Deferred Clocks", "deferred_clocks", leaf("Memory", "mem_clock", "N/A")), "CLOCK"),
        Entry(group("Max Clocks", "max_clocks",
                    *_clocks(H100.max_sm_mhz, H100.max_sm_mhz, H100.max_mem_mhz, H100.max_video_mhz)), "CLOCK"),
        Entry(group("Max Customer Boost Clocks", "max_customer_boost_clocks",
                    *_clocks(H100.max_sm_mhz, None, None, None)), "CLOCK"),
        Entry(group("Clock Policy", "clock_policy", leaf("Auto Boost", "auto_boost", "N/A"),
                    leaf("Auto Boost Default", "auto_boost_default", "N/A")), "CLOCK"),
        Entry(group("Voltage", "voltage", leaf("Graphics", "graphics_volt", f"{view.voltage_mv:.3f} mV")), "VOLTAGE"),
        Entry(group("Fabric", "fabric", leaf("State", "state", gpu.fabric_state),
                    leaf("Status", "status", gpu.fabric_status), leaf("CliqueId", "cliqueId", "N/A"),
                    leaf("ClusterUUID", "clusterUuid", "N/A"),
                    group("Health", "health", leaf("Bandwidth", "bandwidth", "N/A"))), "", FULL_ONLY),
        Entry(_supported_clocks(), "SUPPORTED_CLOCKS", frozenset((DISPLAY, XML))),
        Entry(_target_temp(), "SUPPORTED_GPU_TARGET_TEMP", DISPLAY_ONLY),
        Entry(leaf("Accounting Mode", None, "Disabled"), "ACCOUNTING", DISPLAY_ONLY),
        Entry(leaf("Accounting Mode Buffer Size", None, 4000), "ACCOUNTING", DISPLAY_ONLY),
        Entry(leaf("Accounted Processes", None, "None"), "ACCOUNTING", DISPLAY_ONLY),
        Entry(_processes(view), "PIDS"),
        Entry(group(None, "accounted_processes"), "ACCOUNTING", XML_ONLY),
        Entry(group(None, "capabilities", leaf(None, "egm", "disabled")), "", XML_ONLY),
    ]
    return entries


def _index(entries: list[Entry], tag: str) -> int:
    return next(n for n, e in enumerate(entries) if e.item.tag == tag)


def _session_stats(label: str, tag: str) -> Item:
    return group(label, tag, leaf("Active Sessions", "session_count", 0),
                 leaf("Average FPS", "average_fps", 0), leaf("Average Latency", "average_latency", 0))


def _limits(current: str, requested: str, default: str, minimum: str, maximum: str) -> list[Item]:
    return [leaf("Current Power Limit", "current_power_limit", current),
            leaf("Requested Power Limit", "requested_power_limit", requested),
            leaf("Default Power Limit", "default_power_limit", default),
            leaf("Min Power Limit", "min_power_limit", minimum),
            leaf("Max Power Limit", "max_power_limit", maximum)]


def _clocks(graphics: int | None, sm: int | None, memory: int | None, video: int | None) -> list[Item]:
    named = (("Graphics", "graphics_clock", graphics), ("SM", "sm_clock", sm),
             ("Memory", "mem_clock", memory), ("Video", "video_clock", video))
    return [leaf(label, tag, f"{mhz} MHz") for label, tag, mhz in named if mhz is not None]


def _ecc_counts(title: str, tag: str, counts: EccCounts, *extra: Item) -> Item:
    return group(title, tag,
                 leaf("SRAM Correctable", "sram_correctable", counts.sram_correctable),
                 leaf("SRAM Uncorrectable Parity", "sram_uncorrectable_parity", counts.sram_uncorrectable_parity),
                 leaf("SRAM Uncorrectable SEC-DED", "sram_uncorrectable_secded", counts.sram_uncorrectable_secded),
                 leaf("DRAM Correctable", "dram_correctable", counts.dram_correctable),
                 leaf("DRAM Uncorrectable", "dram_uncorrectable", counts.dram_uncorrectable), *extra)


def _ecc_errors(gpu: GPU) -> Item:
    agg = gpu.ecc_aggregate
    sram_unc = agg.sram_uncorrectable_parity + agg.sram_uncorrectable_secded
    return group("ECC Errors", "ecc_errors",
                 _ecc_counts("Volatile", "volatile", gpu.ecc_volatile),
                 _ecc_counts("Aggregate", "aggregate", agg,
                             leaf("SRAM Threshold Exceeded", "sram_threshold_exceeded", yes(sram_unc > 4))),
                 group("Aggregate Uncorrectable SRAM Sources", "aggregate_uncorrectable_sram_sources",
                       leaf("SRAM L2", "sram_l2", sram_unc),
                       *(leaf(f"SRAM {n}", f"sram_{n.lower()}", 0) for n in ("SM", "Microcontroller", "PCIE", "Other"))))


def _retired_pages_xml() -> Item:
    def retirement(tag: str) -> Item:
        return group(None, tag, leaf(None, "retired_count", "N/A"), leaf(None, "retired_pagelist", "N/A"))

    return group(None, "retired_pages", retirement("multiple_single_bit_retirement"),
                 retirement("double_bit_retirement"), leaf(None, "pending_blacklist", "N/A"),
                 leaf(None, "pending_retirement", "N/A"))


def _remapped_rows(gpu: GPU) -> Item:
    used = gpu.remapped_correctable + gpu.remapped_uncorrectable
    banks = {"Max": max(0, gpu.remap_available_banks - used), "High": min(used, gpu.remap_available_banks),
             "Partial": 0, "Low": 0, "None": 0}
    return group("Remapped Rows", "remapped_rows",
                 leaf("Correctable Error", "remapped_row_corr", gpu.remapped_correctable),
                 leaf("Uncorrectable Error", "remapped_row_unc", gpu.remapped_uncorrectable),
                 leaf("Pending", "remapped_row_pending", yes(gpu.remap_pending)),
                 leaf("Remapping Failure Occurred", "remapped_row_failure", yes(gpu.remap_failure)),
                 group("Bank Remap Availability Histogram", "row_remapper_histogram",
                       *(leaf(name, f"row_remapper_histogram_{name.lower()}", f"{n} bank(s)")
                         for name, n in banks.items())))


def _target_temp() -> Item:
    return group("Supported GPU Target Temp", "supported_gpu_target_temp",
                 leaf("GPU Target Temp Min", "gpu_target_temp_min", "N/A"),
                 leaf("GPU Target Temp Max", "gpu_target_temp_max", "N/A"))


def _supported_clocks() -> Item:
    graphics = [leaf("Graphics", "supported_graphics_clock", f"{mhz} MHz", indent=1)
                for mhz in range(H100.max_sm_mhz, H100.idle_sm_mhz - 1, -15)]
    return group("Supported Clocks", "supported_clocks",
                 group(None, "supported_mem_clock", leaf("Memory", "value", f"{H100.max_mem_mhz} MHz"), *graphics))


def _processes(view: GpuView) -> Item:
    procs = telemetry.processes(view.cluster, view.node, view.gpu)
    if not procs:
        return group(None, "processes", leaf("Processes", None, "None"))
    return group("Processes", "processes", *(
        group(None, "process_info",
              leaf("GPU instance ID", "gpu_instance_id", "N/A"),
              leaf("Compute instance ID", "compute_instance_id", "N/A"),
              leaf("Process ID", "pid", proc.pid),
              leaf("Type", "type", "C", indent=1),
              leaf("Name", "process_name", proc.name, indent=1),
              leaf("Used GPU Memory", "used_memory", f"{proc.used_mib} MiB", indent=1))
        for proc in procs))


def _identity(view: GpuView) -> list[Item]:
    gpu, v = view.gpu, view.cluster.versions
    bus = int(gpu.pci_bus_id.split(":")[1], 16)
    boot = view.node.health.boots[-1].offset_s if view.node.health.boots else 0.0
    flushed = view.cluster.clock.at(boot + 3600.0 * int((view.cluster.clock.elapsed - boot) // 3600.0))

    def current_pending(label: str, tag: str, suffix: str, current: str, pending: str) -> Item:
        return group(label, tag, leaf("Current", f"current_{suffix}", current),
                     leaf("Pending", f"pending_{suffix}", pending))

    return [
        leaf("Product Name", "product_name", H100.name),
        leaf("Product Brand", "product_brand", H100.product_brand),
        leaf("Product Architecture", "product_architecture", H100.architecture),
        leaf("Display Mode", "display_mode", "Disabled"),
        leaf("Display Active", "display_active", "Disabled"),
        leaf("Persistence Mode", "persistence_mode", "Enabled" if gpu.persistence_mode else "Disabled"),
        leaf("Addressing Mode", "addressing_mode", "None"),
        current_pending("MIG Mode", "mig_mode", "mig", "Disabled", "Disabled"),
        leaf(None, "mig_devices", "None", only="xml"),
        leaf("Accounting Mode", "accounting_mode", "Disabled"),
        leaf("Accounting Mode Buffer Size", "accounting_mode_buffer_size", 4000),
        current_pending("Driver Model", "driver_model", "dm", "N/A", "N/A"),
        leaf("Serial Number", "serial", gpu.serial),
        leaf("GPU UUID", "uuid", gpu.uuid),
        leaf("Minor Number", "minor_number", gpu.minor),
        leaf("VBIOS Version", "vbios_version", H100.vbios),
        leaf("MultiGPU Board", "multigpu_board", "No"),
        leaf("Board ID", "board_id", f"0x{bus:x}00"),
        leaf("Board Part Number", "board_part_number", H100.board_part),
        leaf("GPU Part Number", "gpu_part_number", "2330-885-A1"),
        leaf("FRU Part Number", "gpu_fru_part_number", "N/A"),
        leaf("Module ID", "gpu_module_id", (3, 1, 4, 2, 7, 5, 8, 6)[gpu.index % 8]),
        group("Inforom Version", "inforom_version",
              leaf("Image Version", "img_version", H100.inforom_img), leaf("OEM Object", "oem_object", "2.1"),
              leaf("ECC Object", "ecc_object", "7.16"), leaf("Power Management Object", "pwr_object", "N/A")),
        group("Inforom BBX Object Flush", "inforom_bbx_flush",
              leaf("Latest Timestamp", "latest_timestamp",
                   flushed.strftime("%Y/%m/%d %H:%M:%S.") + f"{(gpu.index * 97) % 1000:03d}"),
              leaf("Latest Duration", "latest_duration", f"{88000 + gpu.index * 311} us")),
        current_pending("GPU Operation Mode", "gpu_operation_mode", "gom", "N/A", "N/A"),
        leaf("GPU C2C Mode", "c2c_mode", "N/A"),
        group("GPU Virtualization Mode", "gpu_virtualization_mode",
              leaf("Virtualization Mode", "virtualization_mode", "None"),
              leaf("Host VGPU Mode", "host_vgpu_mode", "N/A"),
              leaf("vGPU Heterogeneous Mode", "vgpu_heterogeneous_mode", "N/A")),
        group("GPU Reset Status", "gpu_reset_status",
              leaf("Reset Required", "reset_required", yes(gpu.reset_required)),
              leaf("Drain and Reset Recommended", "drain_and_reset_recommended",
                   yes(gpu.reset_required or gpu.remap_failure))),
        leaf("GSP Firmware Version", "gsp_firmware_version", v.driver),
        group("IBMNPU", "ibmnpu", leaf("Relaxed Ordering Mode", "relaxed_ordering_mode", "N/A")),
        _pci(view, bus),
    ]


def _pci(view: GpuView, bus: int) -> Item:
    gpu = view.gpu
    tx, rx = view.pcie_kbps
    return group(
        "PCI", "pci",
        leaf("Bus", "pci_bus", f"0x{bus:02X}", xml_value=f"{bus:02X}"),
        leaf("Device", "pci_device", "0x00", xml_value="00"),
        leaf("Domain", "pci_domain", "0x0000", xml_value="0000"),
        leaf("Base Classcode", "pci_base_class", "0x3", xml_value="3"),
        leaf("Sub Classcode", "pci_sub_class", "0x2", xml_value="2"),
        leaf("Device Id", "pci_device_id", H100.device_id, xml_value=H100.device_id[2:]),
        leaf("Bus Id", "pci_bus_id", gpu.pci_bus_id),
        leaf("Sub System Id", "pci_sub_system_id", H100.subsystem_id, xml_value=H100.subsystem_id[2:]),
        group("GPU Link Info", "pci_gpu_link_info",
              group("PCIe Generation", "pcie_gen",
                    leaf("Max", "max_link_gen", gpu.pcie_gen_max),
                    leaf("Current", "current_link_gen", gpu.pcie_gen_current),
                    leaf("Device Current", "device_current_link_gen", gpu.pcie_gen_current),
                    leaf("Device Max", "max_device_link_gen", gpu.pcie_gen_max),
                    leaf("Host Max", "max_host_link_gen", gpu.pcie_gen_max)),
              group("Link Width", "link_widths",
                    leaf("Max", "max_link_width", f"{gpu.pcie_width_max}x"),
                    leaf("Current", "current_link_width", f"{gpu.pcie_width_current}x"))),
        group("Bridge Chip", "pci_bridge_chip", leaf("Type", "bridge_chip_type", "N/A"),
              leaf("Firmware", "bridge_chip_fw", "N/A")),
        leaf("Replays Since Reset", "replay_counter", 0),
        leaf("Replay Number Rollovers", "replay_rollover_counter", 0),
        leaf("Tx Throughput", "tx_util", f"{tx} KB/s"),
        leaf("Rx Throughput", "rx_util", f"{rx} KB/s"),
        leaf("Atomic Caps Inbound", "atomic_caps_inbound", "N/A"),
        leaf("Atomic Caps Outbound", "atomic_caps_outbound", "N/A"))


# -- text -------------------------------------------------------------------------------


def report_header(cluster: Cluster, node: Node, timestamp: str) -> list[str]:
    """The lines before the first GPU of ``nvidia-smi -q``."""
    return ["==============NVSMI LOG==============", "",
            _kv(0, "Timestamp", timestamp), _kv(0, "Driver Version", cluster.versions.driver),
            _kv(0, "CUDA Version", cluster.versions.cuda), "", _kv(0, "Attached GPUs", len(node.gpus))]


def _kv(depth: int, name: str, value: object) -> str:
    """``name : value`` with the colon at column 42."""
    return f"{'    ' * depth}{name}".ljust(42) + f": {value}"


def text_lines(view: GpuView, sections: set[str] | None) -> list[str]:
    """The ``GPU <bus id>`` block of ``-q``; ``sections`` limits it to the ``-d`` types."""
    lines = [f"GPU {view.gpu.pci_bus_id}"]
    for entry in gpu_entries(view):
        if sections is None and FULL in entry.where or (
                sections is not None and DISPLAY in entry.where and set(entry.display.split()) & sections):
            _text(entry.item, 1, lines)
    return lines


def _text(item: Item, depth: int, lines: list[str]) -> None:
    if item.only == "xml":
        return
    at = depth + item.indent
    if item.children is None:
        if item.label is not None:
            lines.append(_kv(at, item.label, item.value) if item.value is not None else f"{'    ' * at}{item.label}")
        return
    if item.label is not None:
        lines.append(f"{'    ' * at}{item.label}")
        at += 1
    for child in item.children:
        _text(child, at, lines)


# -- XML --------------------------------------------------------------------------------


def xml_log(cluster: Cluster, node: Node, timestamp: str, views: list[GpuView | str]) -> str:
    """The ``nvidia-smi -q -x`` document for ``views`` (the GPUs asked for).

    A string in ``views`` stands for a GPU the driver lost: like ``-q``, the
    document carries its handle error on a line of its own where the
    ``<gpu>`` element would be, and goes on with the others.
    """
    v = cluster.versions
    lines = ['<?xml version="1.0" ?>', '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">', "<nvidia_smi_log>",
             f"\t<timestamp>{escape(timestamp)}</timestamp>", f"\t<driver_version>{v.driver}</driver_version>",
             f"\t<cuda_version>{v.cuda}</cuda_version>", f"\t<attached_gpus>{len(node.gpus)}</attached_gpus>"]
    for n, view in enumerate(views):
        if isinstance(view, str):
            lines.append(view)
            continue
        lines.append(f"\t<gpu id={quoteattr(view.gpu.pci_bus_id)}>")
        for entry in gpu_entries(view):
            if XML in entry.where:
                _xml(entry.item, 2, lines)
        lines.append("\t</gpu>")
        if any(not isinstance(later, str) for later in views[n + 1:]):
            lines.append("")
    lines.append("</nvidia_smi_log>")
    return "\n".join(lines) + "\n"


def _xml(item: Item, depth: int, lines: list[str]) -> None:
    if item.only == "text" or item.tag is None:
        return
    pad = "\t" * depth
    if item.children is None:
        value = item.xml_value if item.xml_value is not None else item.value
        lines.append(f"{pad}<{item.tag}>{escape(str(value))}</{item.tag}>")
        return
    lines.append(f"{pad}<{item.tag}>")
    for child in item.children:
        _xml(child, depth + 1, lines)
    lines.append(f"{pad}</{item.tag}>")
