"""The PCI devices of a node as lspci and /sys see them: GPUs, NICs, NVSwitches, NVMe and the switches above them."""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.catalog import NVME_BUSES
from emulator.cluster.model import Node

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
    "rootport": ("PCI bridge", "0604", "Intel Corporation", "8086", "Device", "352a", "04"),
    "vga": ("VGA compatible controller", "0300", "ASPEED Technology, Inc.", "1a03", "ASPEED Graphics Family",
            "2000", "52"),
    "e810": ("Ethernet controller", "0200", "Intel Corporation", "8086", "Ethernet Controller E810-C for QSFP",
             "1592", "02"),
}



GEN_GTS = {1: "2.5GT/s", 2: "5GT/s", 3: "8GT/s", 4: "16GT/s", 5: "32GT/s"}



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
    #: The device stopped answering config reads (a GPU that fell off the bus).
    lost: bool = False
    #: For a bridge: the buses behind it, secondary to subordinate (-1: not a bridge).
    secondary: int = -1
    subordinate: int = -1

    @property
    def bus_number(self) -> int:
        return int(self.bus[:2], 16)



def nvswitch_bus_id(k: int) -> str:
    """``0000:05:00.0``: the PCI address of the baseboard's NVSwitch ``k`` (its physical id)."""
    return f"0000:{0x05 + k:02x}:00.0"


def pci_devices(node: Node) -> list[PciDev]:
    """Every PCI function of the host: endpoints from the model, and the root ports and switch
    ports whose bus ranges lead to them (the tree ``lspci -t`` draws)."""
    devs = [PciDev("03:00.0", "vga", 0, "ast", 1, 1, 1, 1)]
    if node.role == "login":
        devs.append(PciDev("8a:00.0", "e810", 1, "ice", 4, 16, 4, 16))
        for nic in node.nics:
            devs.append(PciDev(nic.pci_bus_id[5:].lower(), "eth", nic.numa_node, "mlx5_core"))
        for i in range(len(node.hw.disks)):
            devs.append(PciDev(f"{NVME_BUSES[i]:02x}:00.0", "nvme", 0, "nvme", 4, 4, 4, 4))
        return _with_bridges(devs, [])
    for k in range(node.hw.nvswitches):
        devs.append(PciDev(nvswitch_bus_id(k)[5:], "nvswitch", 0, "", 4, 2, 4, 2))
    behind: dict[int, list[PciDev]] = {sw.index: [] for sw in node.hw.pcie_switches}
    for gpu in node.gpus:
        # A GPU that fell off the bus stays enumerated, but its config space reads all ones.
        behind[gpu.pcie_switch].append(PciDev(gpu.pci_bus_id[9:].lower(), "gpu", gpu.numa_node, "nvidia",
                                              gpu.pcie_gen_current, gpu.pcie_width_current, gpu.pcie_gen_max,
                                              gpu.pcie_width_max, lost=not gpu.present))
    for nic in node.nics:
        behind[nic.pcie_switch].append(PciDev(nic.pci_bus_id[5:].lower(), "ib" if nic.link_layer == "InfiniBand"
                                              else "eth", nic.numa_node, "mlx5_core"))
    for i, disk in enumerate(node.hw.disks):
        devs.append(PciDev(f"{NVME_BUSES[i]:02x}:00.0", "nvme", disk.numa_node, "nvme", 4, 4, 4, 4))
    devs.append(PciDev("8a:00.0", "e810", 1, "ice", 4, 16, 4, 16))
    switches = [(int(sw.bus[5:7], 16), sw.numa_node, behind[sw.index]) for sw in node.hw.pcie_switches]
    return _with_bridges(devs, switches)



def _with_bridges(standalone: list[PciDev], switches: list[tuple[int, int, list[PciDev]]]) -> list[PciDev]:
    """Add the bridges: each PCIe switch (upstream port on bus B, one downstream port per endpoint, at
    least two, and a second-stage port above an endpoint further down) hangs off a root port on root
    bus B-1; every other endpoint has a root port of its own on the nearest root bus below it (bus 00
    or 80 for the two sockets' integrated devices)."""
    devs = list(standalone)
    roots = sorted({0x00, 0x80} | {bus - 1 for bus, _, _ in switches})
    ports: dict[int, list[tuple[int, int, int]]] = {root: [] for root in roots}   # root → (sec, sub, numa)
    for bus, numa, members in switches:
        members = sorted(members, key=lambda d: d.bus)
        lanes = [m.bus_number for m in members]
        lanes += [max(lanes, default=bus + 1) + 1 + n for n in range(2 - len(lanes))]
        last = max(lanes)
        devs.append(PciDev(f"{bus:02x}:00.0", "switch", numa, "pcieport", secondary=bus + 1, subordinate=last))
        for n, lane in enumerate(lanes):
            # An endpoint further down sits behind a second-stage port on the bus just above its own, the
            # link the kernel names when it reports a degraded one ("limited by ... link at 0000:1a:00.0").
            second = lane - 1 > bus + 1 and any(m.bus_number == lane for m in members)
            devs.append(PciDev(f"{bus + 1:02x}:{n:02x}.0", "switch", numa, "pcieport",
                               secondary=lane - 1 if second else lane, subordinate=lane))
            if second:
                devs.append(PciDev(f"{lane - 1:02x}:00.0", "switch", numa, "pcieport", secondary=lane,
                                   subordinate=lane))
        devs += members
        ports[bus - 1].append((bus, last, numa))
    for dev in standalone:
        root = max(r for r in roots if r < dev.bus_number)
        ports[root].append((dev.bus_number, dev.bus_number, dev.numa))
    for root in roots:
        devs.append(PciDev(f"{root:02x}:00.0", "host", 0 if root < 0x80 else 1, ""))
        for n, (sec, sub, numa) in enumerate(sorted(ports[root])):
            devs.append(PciDev(f"{root:02x}:{n + 1:02x}.0", "rootport", numa, "pcieport", secondary=sec,
                               subordinate=sub))
    return sorted(devs, key=lambda d: d.bus)
