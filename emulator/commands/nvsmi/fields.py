"""The fields of ``nvidia-smi --query-gpu`` and ``--query-remapped-rows``, and their ``--help-query-*`` text.

One table per query names each field, its unit, how it is read from a
:class:`~.nvsmi_query.GpuView`, its description and the other names
nvidia-smi accepts for it; the help listing and the CSV both come from it,
so every property the help lists can be queried. The help keeps the real
layout (a blank line before each quoted property name), which exporters
parse to discover the fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from emulator.cluster.catalog import H100
from emulator.commands.nvsmi.query import GpuView, active, ecc_total, yes

Getter = Callable[[GpuView], object]


@dataclass(frozen=True)
class Field:
    name: str
    unit: str            # printed after the value unless ``nounits``, and in the header
    get: Getter          # None from the getter prints [N/A]
    text: str            # the help description
    aliases: tuple[str, ...] = ()

    @property
    def header(self) -> str:
        return f"{self.name} [{self.unit}]" if self.unit else self.name


@dataclass(frozen=True)
class Section:
    """A ``Section about ... properties`` paragraph of the help."""

    title: str
    text: str


def _reason(name: str) -> Getter:
    return lambda g: active(name in g.reasons)


def _ecc(volatile: bool, corrected: bool, kind: str = "total") -> Getter:
    def get(g: GpuView) -> object:
        counts = g.gpu.ecc_volatile if volatile else g.gpu.ecc_aggregate
        if kind == "total":
            return ecc_total(counts, corrected)
        if kind == "dram":
            return counts.dram_correctable if corrected else counts.dram_uncorrectable
        if kind == "sram":
            return counts.sram_correctable if corrected else (
                counts.sram_uncorrectable_parity + counts.sram_uncorrectable_secded)
        return None
    return get


def _timestamp(g: GpuView) -> str:
    return g.cluster.clock.now().strftime("%Y/%m/%d %H:%M:%S.") + f"{int(g.cluster.clock.elapsed * 1000) % 1000:03d}"


def _na(g: GpuView) -> None:
    return None


_REASONS = (
    ("gpu_idle", "Idle", "Nothing is running on the GPU and the clocks are dropping to Idle state."),
    ("applications_clocks_setting", "Applications Clocks Setting",
     "GPU clocks are limited by the applications clocks setting."),
    ("sw_power_cap", "SW Power Cap", "The SW power scaling algorithm is holding the clocks below the requested "
                                     "clocks because the GPU is consuming too much power."),
    ("hw_slowdown", "HW Slowdown", "HW Slowdown (the core clocks cut by a factor of 2 or more) is engaged: "
                                   "temperature too high, External Power Brake Assertion, or power draw too high."),
    ("hw_thermal_slowdown", "HW Thermal Slowdown", "HW Thermal Slowdown is engaged: temperature is too high."),
    ("hw_power_brake_slowdown", "HW Power Brake Slowdown",
     "HW Power Brake Slowdown is engaged: External Power Brake Assertion is triggered (e.g. by the power supply)."),
    ("sw_thermal_slowdown", "SW Thermal Slowdown", "The SW thermal capping algorithm is holding clocks below the "
                                                   "requested clocks because the GPU is above Max Operating Temp."),
    ("sync_boost", "Sync Boost", "The GPU is in a sync boost group and is held at the group's lowest clocks."),
)

_ECC_KINDS = (("device_memory", "Errors detected in global device memory.", "dram"),
              ("dram", "Errors detected in global device memory.", "dram"),
              ("sram", "Errors detected in global SRAMs.", "sram"),
              ("total", "Total errors detected across entire chip.", "total"))

GPU_FIELDS: list[Field | Section] = [
    Field("timestamp", "", _timestamp,
          'The timestamp of when the query was made in format "YYYY/MM/DD HH:MM:SS.msec".'),
    Field("driver_version", "", lambda g: g.cluster.versions.driver,
          "The version of the installed NVIDIA display driver. This is an alphanumeric string."),
    Field("count", "", lambda g: len(g.node.gpus), "The number of NVIDIA GPUs in the system."),
    Field("name", "", lambda g: H100.name, "The official product name of the GPU. This is an alphanumeric string. "
          "For all products.", ("gpu_name",)),
    Field("serial", "", lambda g: g.gpu.serial, "This number matches the serial number physically printed on each "
          "board. It is a globally unique immutable alphanumeric value.", ("gpu_serial",)),
    Field("uuid", "", lambda g: g.gpu.uuid, "This value is the globally unique immutable alphanumeric identifier of "
          "the GPU. It does not correspond to any physical label on the board.", ("gpu_uuid",)),
    Field("pci.bus_id", "", lambda g: g.gpu.pci_bus_id, 'PCI bus id as "domain:bus:device.function", in hex.',
          ("gpu_bus_id",)),
    Field("pci.domain", "", lambda g: "0x0000", "PCI domain number, in hex."),
    Field("pci.bus", "", lambda g: "0x" + g.gpu.pci_bus_id.split(":")[1], "PCI bus number, in hex."),
    Field("pci.device", "", lambda g: "0x00", "PCI device number, in hex."),
    Field("pci.device_id", "", lambda g: H100.device_id, "PCI vendor device id, in hex"),
    Field("pci.sub_device_id", "", lambda g: H100.subsystem_id, "PCI Sub System id, in hex"),
    Field("pcie.link.gen.current", "", lambda g: g.gpu.pcie_gen_current, "The current PCI-E link generation. "
          "These may be reduced when the GPU is not in use. Deprecated, use pcie.link.gen.gpucurrent instead."),
    Field("pcie.link.gen.gpucurrent", "", lambda g: g.gpu.pcie_gen_current,
          "The current PCI-E link generation. These may be reduced when the GPU is not in use."),
    Field("pcie.link.gen.max", "", lambda g: g.gpu.pcie_gen_max, "The maximum PCI-E link generation possible with "
          "this GPU and system configuration."),
    Field("pcie.link.gen.gpumax", "", lambda g: g.gpu.pcie_gen_max,
          "The maximum PCI-E link generation supported by this GPU."),
    Field("pcie.link.gen.hostmax", "", lambda g: g.gpu.pcie_gen_max,
          "The maximum PCI-E link generation supported by the root port corresponding to this GPU."),
    Field("pcie.link.width.current", "", lambda g: g.gpu.pcie_width_current,
          "The current PCI-E link width. These may be reduced when the GPU is not in use."),
    Field("pcie.link.width.max", "", lambda g: g.gpu.pcie_width_max,
          "The maximum PCI-E link width possible with this GPU and system configuration."),
    Field("index", "", lambda g: g.gpu.index, "Zero based index of the GPU. Can change at each boot."),
    Field("display_mode", "", lambda g: "Disabled", "A flag that indicates whether a physical display (e.g. "
          'monitor) is currently connected to any of the GPU\'s connectors. "Enabled" or "Disabled".'),
    Field("display_active", "", lambda g: "Disabled", "A flag that indicates whether a display is initialized on "
          'the GPU. "Enabled" or "Disabled".'),
    Field("persistence_mode", "", lambda g: "Enabled" if g.gpu.persistence_mode else "Disabled",
          'A flag that indicates whether persistence mode is enabled for the GPU. Value is either "Enabled" or '
          '"Disabled". Linux only.'),
    Field("addressing_mode", "", lambda g: "None", 'The type of addressing mode enabled for the GPU: "HMM", "ATS" '
          'or "None". Linux only.'),
    Field("accounting.mode", "", lambda g: "Disabled",
          'A flag that indicates whether accounting mode is enabled for the GPU. Value is either "Enabled" or '
          '"Disabled". See --help-query-accounted-apps for more info.'),
    Field("accounting.buffer_size", "", lambda g: 4000, "The size of the circular buffer that holds the list of "
          "processes that can be queried for accounting stats."),
    Section("driver_model", "On Windows, the TCC and WDDM driver models are supported. Linux does not support "
            'multiple driver models, and will always have the value of "N/A".'),
    Field("driver_model.current", "", _na, 'The driver model currently in use. Always "N/A" on Linux.'),
    Field("driver_model.pending", "", _na, 'The driver model that will be used on the next reboot. Always "N/A" on '
          "Linux."),
    Field("vbios_version", "", lambda g: H100.vbios, "The BIOS of the GPU board."),
    Section("inforom", "Version numbers for each object in the GPU board's inforom storage. The inforom is a small, "
            "persistent store of configuration and state data for the GPU."),
    Field("inforom.img", "", lambda g: H100.inforom_img, "Global version of the infoROM image.", ("inforom.image",)),
    Field("inforom.oem", "", lambda g: "2.1", "Version for the OEM configuration data."),
    Field("inforom.ecc", "", lambda g: "7.16", "Version for the ECC recording data."),
    Field("inforom.pwr", "", _na, "Version for the power management data.", ("inforom.power",)),
    Section("reset_status", "GPU reset status information. Reports if there is a GPU reset required or drain and "
            "reset recommended to recover from a bad state."),
    Field("reset_status.reset_required", "", lambda g: yes(g.gpu.reset_required),
          "Checks if a GPU reset is required."),
    Field("reset_status.drain_and_reset_recommended", "", lambda g: yes(g.gpu.reset_required or g.gpu.remap_failure),
          "Checks if a GPU drain and reset is recommended."),
    Field("fan.speed", "%", _na, "The fan speed value is the percent of the product's maximum noise tolerance fan "
          "speed that the device's fan is currently intended to run at. Many parts do not report fan speeds because "
          "they rely on cooling via fans in the surrounding enclosure."),
    Field("pstate", "", lambda g: g.reading.pstate, "The current performance state for the GPU. States range from P0 "
          "(maximum performance) to P12 (minimum performance)."),
    Section("clocks_event_reasons", "Retrieves information about factors that are reducing the frequency of clocks. "
            'If all event reasons are returned as "Not Active" it means that clocks are running as high as '
            "possible."),
    Field("clocks_event_reasons.supported", "", lambda g: "0x00000000000001FF",
          "Bitmask of supported clock event reasons. See nvml.h for more details.",
          ("clocks_throttle_reasons.supported",)),
    Field("clocks_event_reasons.active", "", lambda g: f"0x{g.reasons_mask:016X}",
          "Bitmask of active clock event reasons. See nvml.h for more details.", ("clocks_throttle_reasons.active",)),
    *(Field(f"clocks_event_reasons.{key}", "", _reason(reason), text, (f"clocks_throttle_reasons.{key}",))
      for key, reason, text in _REASONS),
    Section("memory", "On-board memory information. Reported total memory is affected by ECC state."),
    Field("memory.total", "MiB", lambda g: H100.memory_mib, "Total installed GPU memory."),
    Field("memory.reserved", "MiB", lambda g: H100.reserved_mib,
          "Total memory reserved by the NVIDIA driver and firmware."),
    Field("memory.used", "MiB", lambda g: g.reading.mem_used_mib, "Total memory allocated by active contexts."),
    Field("memory.free", "MiB", lambda g: g.reading.mem_free_mib, "Total free memory."),
    Field("compute_mode", "", lambda g: "Default", "The compute mode flag indicates whether individual or multiple "
          "compute applications may run on the GPU."),
    Field("compute_cap", "", lambda g: "9.0",
          "The CUDA Compute Capability, represented as Major DOT Minor."),
    Section("utilization", "Utilization rates report how busy each GPU is over time, and can be used to determine "
            "how much an application is using the GPUs in the system."),
    Field("utilization.gpu", "%", lambda g: g.reading.util_pct, "Percent of time over the past sample period during "
          "which one or more kernels was executing on the GPU."),
    Field("utilization.memory", "%", lambda g: g.reading.mem_util_pct, "Percent of time over the past sample period "
          "during which global (device) memory was being read or written."),
    *(Field(f"utilization.{engine}", "%", lambda g: 0, f"Percent of time over the past sample period during which "
            f"one or more kernels was executing on the {label}.")
      for engine, label in (("encoder", "Encoder Engine"), ("decoder", "Decoder Engine"), ("jpeg", "Jpeg Engine"),
                            ("ofa", "Optical Flow Accelerator Engine"))),
    Section("encoder.stats", "Encoder stats report number of encoder sessions, average FPS and average latency in "
            "us for given GPUs in the system."),
    Field("encoder.stats.sessionCount", "", lambda g: 0, "Number of encoder sessions running on the GPU."),
    Field("encoder.stats.averageFps", "", lambda g: 0, "Average FPS of all sessions running on the GPU."),
    Field("encoder.stats.averageLatency", "", lambda g: 0,
          "Average latency in microseconds of all sessions running on the GPU."),
    Section("ecc.mode", 'A flag that indicates whether ECC support is enabled. May be either "Enabled" or '
            '"Disabled". Changes to ECC mode require a reboot.'),
    Field("ecc.mode.current", "", lambda g: "Enabled", "The ECC mode that the GPU is currently operating under."),
    Field("ecc.mode.pending", "", lambda g: "Enabled",
          "The ECC mode that the GPU will operate under after the next reboot."),
    Section("ecc.errors", "NVIDIA GPUs can provide error counts for various types of ECC errors. Volatile error "
            "counters track the number of errors detected since the last driver load. Aggregate error counts "
            "persist indefinitely and thus act as a lifetime counter."),
    *(Field(f"ecc.errors.{sense}.{span}.{kind}", "", _ecc(span == "volatile", sense == "corrected", source), text)
      for sense in ("corrected", "uncorrected") for span in ("volatile", "aggregate")
      for kind, text, source in _ECC_KINDS),
    Section("retired_pages", "NVIDIA GPUs can retire pages of GPU device memory when they become unreliable. GPUs "
            "that remap rows instead report [N/A]."),
    Field("retired_pages.single_bit_ecc.count", "", _na, "The number of GPU device memory pages that have been "
          "retired due to multiple single bit ECC errors.", ("retired_pages.sbe",)),
    Field("retired_pages.double_bit.count", "", _na, "The number of GPU device memory pages that have been retired "
          "due to a double bit ECC error.", ("retired_pages.dbe",)),
    Field("retired_pages.pending", "", _na,
          "Checks if any GPU device memory pages are pending retirement on the next reboot."),
    # The row remapper's state, as ``-q -d ROW_REMAPPER`` and ``--query-remapped-rows`` show it; in
    # --query-gpu the two flags print Yes/No. Names, order (after retired_pages) and plain headers as
    # nvidia-smi --help-query-gpu lists them (utkuozdemir/nvidia_gpu_exporter internal/nvmlnative catalog,
    # checked against a live H100).
    Section("remapped_rows", "Information about remapped rows of the GPU's memory."),
    Field("remapped_rows.correctable", "", lambda g: g.gpu.remapped_correctable,
          "The number of rows remapped due to correctable errors."),
    Field("remapped_rows.uncorrectable", "", lambda g: g.gpu.remapped_uncorrectable,
          "The number of rows remapped due to uncorrectable errors."),
    Field("remapped_rows.pending", "", lambda g: yes(g.gpu.remap_pending),
          "Whether a row remapping is pending; the GPU must be reset for it to take effect."),
    Field("remapped_rows.failure", "", lambda g: yes(g.gpu.remap_failure),
          "Whether a row remapping has failed in the past."),
    Field("temperature.gpu", "", lambda g: g.reading.temp_c, " Core GPU temperature. in degrees C."),
    Field("temperature.gpu.tlimit", "", lambda g: g.reading.tlimit_margin_c, " GPU T.Limit temperature. in degrees C."),
    Field("temperature.memory", "", lambda g: g.reading.mem_temp_c, " HBM memory temperature. in degrees C."),
    Field("power.management", "", lambda g: "Enabled", "A flag that indicates whether power management is enabled."),
    Field("power.draw", "W", lambda g: f"{g.reading.power_w:.2f}", "The last measured power draw for the entire "
          "board, in watts. On Ampere or newer devices, returns average power draw over 1 sec."),
    Field("power.draw.average", "W", lambda g: f"{g.reading.power_w:.2f}",
          "The last measured average power draw for the entire board, in watts."),
    Field("power.draw.instant", "W", lambda g: f"{g.reading.power_w:.2f}",
          "The last measured instant power draw for the entire board, in watts."),
    Field("power.limit", "W", lambda g: f"{g.gpu.power_limit_w:.2f}", "The software power limit in watts."),
    Field("enforced.power.limit", "W", lambda g: f"{g.gpu.power_limit_w:.2f}",
          "The power management algorithm's power ceiling, in watts."),
    Field("power.default_limit", "W", lambda g: f"{H100.power_limit_w:.2f}",
          "The default power management algorithm's power ceiling, in watts."),
    Field("power.min_limit", "W", lambda g: f"{H100.power_min_w:.2f}",
          "The minimum value in watts that power limit can be set to."),
    Field("power.max_limit", "W", lambda g: f"{H100.power_limit_w:.2f}",
          "The maximum value in watts that power limit can be set to."),
    Field("clocks.current.graphics", "MHz", lambda g: g.reading.sm_mhz,
          "Current frequency of graphics (shader) clock.", ("clocks.gr",)),
    Field("clocks.current.sm", "MHz", lambda g: g.reading.sm_mhz,
          "Current frequency of SM (Streaming Multiprocessor) clock.", ("clocks.sm",)),
    Field("clocks.current.memory", "MHz", lambda g: g.reading.mem_mhz, "Current frequency of memory clock.",
          ("clocks.mem",)),
    Field("clocks.current.video", "MHz", lambda g: g.video_mhz,
          "Current frequency of video encoder/decoder clock.", ("clocks.video",)),
    Section("clocks.applications", "User specified frequency at which applications will be running at."),
    Field("clocks.applications.graphics", "MHz", lambda g: H100.max_sm_mhz,
          "User specified frequency of graphics (shader) clock.", ("clocks.applications.gr",)),
    Field("clocks.applications.memory", "MHz", lambda g: H100.max_mem_mhz,
          "User specified frequency of memory clock.", ("clocks.applications.mem",)),
    Section("clocks.default_applications", "Default frequency at which applications will be running at."),
    Field("clocks.default_applications.graphics", "MHz", lambda g: H100.max_sm_mhz,
          "Default frequency of applications graphics (shader) clock.", ("clocks.default_applications.gr",)),
    Field("clocks.default_applications.memory", "MHz", lambda g: H100.max_mem_mhz,
          "Default frequency of applications memory clock.", ("clocks.default_applications.mem",)),
    Section("clocks.max", "Maximum frequency at which parts of the GPU are design to run."),
    Field("clocks.max.graphics", "MHz", lambda g: H100.max_sm_mhz, "Maximum frequency of graphics (shader) clock.",
          ("clocks.max.gr",)),
    Field("clocks.max.sm", "MHz", lambda g: H100.max_sm_mhz,
          "Maximum frequency of SM (Streaming Multiprocessor) clock."),
    Field("clocks.max.memory", "MHz", lambda g: H100.max_mem_mhz, "Maximum frequency of memory clock.",
          ("clocks.max.mem",)),
    Section("mig.mode", 'A flag that indicates whether MIG mode is enabled. May be either "Enabled" or "Disabled". '
            "Changes to MIG mode require a GPU reset."),
    Field("mig.mode.current", "", lambda g: "Disabled", "The MIG mode that the GPU is currently operating under."),
    Field("mig.mode.pending", "", lambda g: "Disabled", "The MIG mode that the GPU will operate under after reset."),
    Field("fabric.state", "", lambda g: g.gpu.fabric_state, "Current state of GPU fabric registration process."),
    Field("fabric.status", "", lambda g: g.gpu.fabric_status,
          'Error status, valid only if gpu fabric registration state is "completed"'),
]

#: ``--query-remapped-rows``: pending and failure are 0 or 1 here, not Yes/No.
REMAPPED_ROW_FIELDS: list[Field | Section] = [
    Section("Remapped Rows", "Information about remapped rows of the GPU's memory."),
    Field("gpu_name", "", lambda g: H100.name, "The official product name of the GPU."),
    Field("gpu_bus_id", "", lambda g: g.gpu.pci_bus_id, 'PCI bus id as "domain:bus:device.function", in hex.'),
    Field("gpu_serial", "", lambda g: g.gpu.serial, "The serial number of the GPU board."),
    Field("gpu_uuid", "", lambda g: g.gpu.uuid, "The globally unique identifier of the GPU."),
    Field("remapped_rows.correctable", "", lambda g: g.gpu.remapped_correctable,
          "The number of rows remapped due to correctable errors."),
    Field("remapped_rows.uncorrectable", "", lambda g: g.gpu.remapped_uncorrectable,
          "The number of rows remapped due to uncorrectable errors."),
    Field("remapped_rows.pending", "", lambda g: int(g.gpu.remap_pending),
          "Whether a row remapping is pending; the GPU must be reset for it to take effect."),
    Field("remapped_rows.failure", "", lambda g: int(g.gpu.remap_failure),
          "Whether a row remapping has failed in the past."),
]


class FieldTable:
    """Name resolution, headers, values and help text of one query's fields."""

    def __init__(self, switch: str, entries: list[Field | Section]) -> None:
        self.switch = switch
        self.entries = entries
        self.fields = {e.name: e for e in entries if isinstance(e, Field)}
        self.names = {alias.lower(): e for e in self.fields.values() for alias in (e.name, *e.aliases)}

    def resolve(self, typed: str) -> Field | None:
        """The field for ``typed`` (any accepted name, any case), or None when nvidia-smi rejects it."""
        return self.names.get(typed.strip().lower())

    @staticmethod
    def value(view: GpuView, field: Field, nounits: bool) -> str:
        value = field.get(view)
        if value is None:
            return "[N/A]"
        if field.unit and not nounits:
            return f"{value} {field.unit}"
        return str(value)

    def help(self) -> str:
        """``--help-query-*``: each property quoted after a blank line, then its description."""
        parts = [f'List of valid properties to query for the switch "{self.switch}":']
        for entry in self.entries:
            if isinstance(entry, Section):
                parts.append(f"Section about {entry.title} properties\n{entry.text}")
            else:
                names = " or ".join(f'"{n}"' for n in (entry.name, *entry.aliases))
                parts.append(f"{names}\n{entry.text}")
        return "\n\n".join(parts) + "\n\n"


GPU_QUERY = FieldTable("--query-gpu", GPU_FIELDS)
REMAPPED_ROWS_QUERY = FieldTable("--query-remapped-rows", REMAPPED_ROW_FIELDS)
