"""One GPU's ``nvidia-smi -q`` report as a tree of items, built once from a :class:`GpuView`.

:func:`gpu_entries` lists every top-level item in the order nvidia-smi
prints them, each tagged with its ``-d`` display type and the renderings it
appears in, so the text report and the XML log print the same values at the
same instant.
"""

from __future__ import annotations

from emulator.cluster import telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import CLOCK_EVENT_REASONS, GPU, EccCounts
from emulator.commands.nvsmi.query import GpuView, active, yes
from emulator.commands.nvsmi.report_identity import identity_items
from emulator.commands.nvsmi.report_items import (
    DISPLAY,
    DISPLAY_ONLY,
    EVERYWHERE,
    FULL_ONLY,
    XML,
    XML_ONLY,
    Entry,
    Item,
    group,
    leaf,
)

#: XML element of each clock event reason.
REASON_TAGS = {
    "Idle": "gpu_idle", "Applications Clocks Setting": "applications_clocks_setting",
    "SW Power Cap": "sw_power_cap", "HW Slowdown": "hw_slowdown", "HW Thermal Slowdown": "hw_thermal_slowdown",
    "HW Power Brake Slowdown": "hw_power_brake_slowdown", "Sync Boost": "sync_boost",
    "SW Thermal Slowdown": "sw_thermal_slowdown", "Display Clock Setting": "display_clocks_setting",
}


def gpu_entries(view: GpuView) -> list[Entry]:
    """Every item of one GPU's report, in the order nvidia-smi prints them."""
    gpu, r = view.gpu, view.reading
    entries = [Entry(item, "", FULL_ONLY) for item in identity_items(view)]
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
