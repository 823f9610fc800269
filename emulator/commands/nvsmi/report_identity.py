"""The identity block of a GPU's ``-q`` report: names, serials, modes, Inforom, reset status and PCI.

Everything ``nvidia-smi -q`` prints before the performance state, as items
of :mod:`emulator.commands.nvsmi.report_items`.
"""

from __future__ import annotations

from emulator.cluster.catalog import H100
from emulator.commands.nvsmi.query import GpuView, yes
from emulator.commands.nvsmi.report_items import Item, group, leaf


def identity_items(view: GpuView) -> list[Item]:
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
