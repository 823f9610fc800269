"""A host's ``/sys``: InfiniBand device and port attributes and counters, PCIe links, NUMA nodes.

Port state, rate and counters are read live from the model (a fault that
downgrades a link shows at once); GPU PCIe link speed and width likewise.
The tree is populated on first look (``/sys`` is large and rarely read).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from emulator.cluster import counters, links
from emulator.cluster.hardware import GPU, NIC
from emulator.cluster.model import Cluster, Node
from emulator.cluster.pci import pci_devices
from emulator.hostfs.tree import live_file, tree
from emulator.vfs import Dir, File

_PORT_STATES = {"Down": "1: DOWN", "Initializing": "2: INIT", "Armed": "3: ARMED", "Active": "4: ACTIVE"}


_PHYS_STATES = {"Sleep": "1: Sleep", "Polling": "2: Polling", "Disabled": "3: Disabled",
                "PortConfigurationTraining": "4: PortConfigurationTraining", "LinkUp": "5: LinkUp",
                "LinkErrorRecovery": "6: LinkErrorRecovery"}


#: sysfs counter file → the model's PMA counter name.
_SYSFS_COUNTERS = {
    "symbol_error": "SymbolErrorCounter", "link_error_recovery": "LinkErrorRecoveryCounter",
    "link_downed": "LinkDownedCounter", "port_rcv_errors": "PortRcvErrors",
    "port_rcv_remote_physical_errors": "PortRcvRemotePhysicalErrors",
    "port_rcv_switch_relay_errors": "PortRcvSwitchRelayErrors", "port_xmit_discards": "PortXmitDiscards",
    "port_xmit_constraint_errors": "PortXmitConstraintErrors",
    "port_rcv_constraint_errors": "PortRcvConstraintErrors",
    "local_link_integrity_errors": "LocalLinkIntegrityErrors",
    "excessive_buffer_overrun_errors": "ExcessiveBufferOverrunErrors", "VL15_dropped": "VL15Dropped",
    "port_xmit_wait": "PortXmitWait", "port_xmit_data": "PortXmitData", "port_rcv_data": "PortRcvData",
    "port_xmit_packets": "PortXmitPkts", "port_rcv_packets": "PortRcvPkts",
    "unicast_xmit_packets": "PortUnicastXmitPkts", "unicast_rcv_packets": "PortUnicastRcvPkts",
    "multicast_xmit_packets": "PortMulticastXmitPkts", "multicast_rcv_packets": "PortMulticastRcvPkts",
}


def populate_sys(cluster: Cluster, node: Node, sys_dir: Dir) -> None:
    """Fill ``sys_dir`` on first look: /sys/class/infiniband/mlx5_N (device attributes, port 1's state, rate and
    counters), each PCI function's NUMA node and the GPUs' link attributes, the online NUMA nodes."""
    files: dict[str, File] = {}
    for nic in node.nics:
        base = f"class/infiniband/{nic.name}"
        port = f"{base}/ports/1"
        attributes: dict[str, Callable[[NIC], object]] = {
            f"{base}/fw_ver": lambda n: n.firmware,
            f"{base}/node_guid": lambda n: _guid_text(n.node_guid),
            f"{base}/sys_image_guid": lambda n: _guid_text(n.node_guid),
            f"{base}/hca_type": lambda n: n.ca_type,
            f"{base}/board_id": lambda n: "MT_0000000838",
            f"{base}/device/numa_node": lambda n: n.numa_node,
            f"{port}/state": lambda n: _PORT_STATES.get(n.state, "1: DOWN"),
            f"{port}/phys_state": lambda n: _PHYS_STATES.get(n.phys_state, "3: Disabled"),
            f"{port}/rate": links.rate_text,
            f"{port}/lid": lambda n: f"0x{n.lid:x}",
            f"{port}/sm_lid": lambda n: f"0x{n.sm_lid:x}",
            f"{port}/link_layer": lambda n: n.link_layer,
            f"class/net/{nic.netdev}/device/numa_node": lambda n: n.numa_node,
        }
        for path, render in attributes.items():
            files[path] = _attribute(nic, render)
        for sysfs_name, counter in _SYSFS_COUNTERS.items():
            files[f"{port}/counters/{sysfs_name}"] = _counter(cluster, node, nic, counter)
    for gpu in node.gpus:
        bus = f"bus/pci/devices/{gpu.pci_bus_id[4:].lower()}"
        files[f"{bus}/numa_node"] = File(f"{gpu.numa_node}\n", mode=0o444, fixed_size=4096)
        for name, field in (("current_link_speed", "pcie_gen_current"), ("current_link_width", "pcie_width_current"),
                            ("max_link_speed", "pcie_gen_max"), ("max_link_width", "pcie_width_max")):
            files[f"{bus}/{name}"] = live_file(functools.partial(_pcie_link, gpu, field), 4096)
    for dev in pci_devices(node):
        # Every PCI function's NUMA node, as lspci -vv prints it (the GPUs' already set above).
        files.setdefault(f"bus/pci/devices/0000:{dev.bus}/numa_node", File(f"{dev.numa}\n", mode=0o444, fixed_size=4096))
    files["devices/system/node/online"] = File(f"0-{node.cpu.sockets - 1}\n", mode=0o444, fixed_size=4096)
    sys_dir.children.update(tree(files).children)


#: PCIe generation → the link speed as sysfs prints it.
_PCIE_GTS = {1: "2.5 GT/s", 2: "5.0 GT/s", 3: "8.0 GT/s", 4: "16.0 GT/s", 5: "32.0 GT/s"}


def _pcie_link(gpu: GPU, field: str) -> str:
    """A GPU's PCIe link attribute, read live: ``16.0 GT/s PCIe`` for a speed, ``16`` for a width."""
    value = getattr(gpu, field)
    return f"{_PCIE_GTS[value]} PCIe\n" if "gen" in field else f"{value}\n"


def _attribute(nic: NIC, render: Callable[[NIC], object]) -> File:
    """A sysfs attribute of a NIC, read live."""
    return live_file(lambda: f"{render(nic)}\n", 4096)


def _counter(cluster: Cluster, node: Node, nic: NIC, name: str) -> File:
    """A port counter file: the PMA counter as a reader sees it now."""
    return live_file(lambda: f"{counters.counters(cluster, node, nic).get(name, 0)}\n", 4096)


def _guid_text(guid: str) -> str:
    """``0xa088c20300da6342`` as sysfs prints it: ``a088:c203:00da:6342``."""
    h = guid.removeprefix("0x").rjust(16, "0")
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))
