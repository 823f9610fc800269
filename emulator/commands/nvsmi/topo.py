"""``nvidia-smi topo -m`` and ``nvidia-smi nvlink``: the node's wiring as the driver sees it.

The matrix comes from the model's PCIe switches, NUMA nodes, NICs and
NVLinks: a GPU and the rail NIC behind its PCIe switch are ``PXB``, devices
under the same socket ``NODE``, across sockets ``SYS``, GPU pairs ``NV#``
with # the NVLinks both GPUs still have up. ``topo -p2p`` prints NVML's
peer-to-peer status of each GPU pair for one capability
(:func:`emulator.cluster.peers.p2p_status`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.cluster import peers, telemetry
from emulator.cluster.catalog import H100
from emulator.cluster.hardware import GPU, NIC

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

LEGEND = """\
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""


def _links_up(gpu: GPU) -> int:
    return sum(1 for link in gpu.nvlinks if link.up)


def _pcie(a_switch: int, a_numa: int, b_switch: int, b_numa: int, same: str) -> str:
    if a_switch == b_switch:
        return same
    return "NODE" if a_numa == b_numa else "SYS"


def topo_matrix(node: Node) -> str:
    gpus = [g for g in node.gpus if g.present]
    nics: list[NIC] = sorted(node.nics, key=lambda n: int(n.name.split("_")[1]))
    labels = [f"GPU{g.index}" for g in gpus] + [f"NIC{i}" for i in range(len(nics))]
    lines = ["\t" + "\t".join(labels) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for g in gpus:
        cells = []
        for other in gpus:
            if other is g:
                cells.append(" X ")
            else:
                bonded = min(_links_up(g), _links_up(other))
                cells.append(f"NV{bonded}" if bonded else _pcie(g.pcie_switch, g.numa_node, other.pcie_switch,
                                                                  other.numa_node, "PIX"))
        cells += [_pcie(g.pcie_switch, g.numa_node, n.pcie_switch, n.numa_node, "PXB") for n in nics]
        cpus = node.cpu.cpus_of_numa(g.numa_node)
        lines.append(f"GPU{g.index}\t" + "\t".join(cells) + f"\t{cpus}\t{g.numa_node}\t\tN/A")
    for i, n in enumerate(nics):
        cells = [_pcie(n.pcie_switch, n.numa_node, g.pcie_switch, g.numa_node, "PXB") for g in gpus]
        cells += [" X " if other is n else _pcie(n.pcie_switch, n.numa_node, other.pcie_switch, other.numa_node,
                                                 "PIX") for other in nics]
        lines.append(f"NIC{i}\t" + "\t".join(cells))
    out = "\n".join(lines) + "\n\n" + LEGEND + "\nNIC Legend:\n\n"
    out += "".join(f"  NIC{i}: {n.name}\n" for i, n in enumerate(nics))
    return out


P2P_LEGEND = """\
Legend:

  X    = Self
  OK   = Status Ok
  CNS  = Chipset not supported
  GNS  = GPU not supported
  TNS  = Topology not supported
  NS   = Not supported
  U    = Unknown
"""


def p2p_matrix(node: Node, capability: str) -> str:
    """``topo -p2p CAP``: one row per GPU, each cell the pair's status, every line tab-ended."""
    gpus = [g for g in node.gpus if g.present]
    lines = [" \t" + "".join(f"GPU{g.index}\t" for g in gpus)]
    for g in gpus:
        cells = "".join(("X" if other is g else peers.p2p_status(node, g, other, capability)) + "\t"
                        for other in gpus)
        lines.append(f" GPU{g.index}\t{cells}")
    return "\n".join(lines) + "\n\n" + P2P_LEGEND


def gpu_title(gpu: GPU) -> str:
    return f"GPU {gpu.index}: {H100.name} (UUID: {gpu.uuid})"


def nvlink_status(cluster: Cluster, gpu: GPU) -> list[str]:
    lines = [gpu_title(gpu)]
    for link in gpu.nvlinks:
        rate = f"{link.speed_gbps:.3f} GB/s" if link.up else "<inactive>"
        lines.append(f"\t Link {link.index}: {rate}")
    return lines


def nvlink_errors(cluster: Cluster, gpu: GPU) -> list[str]:
    lines = [gpu_title(gpu)]
    for link in gpu.nvlinks:
        replay, recovery, crc = telemetry.nvlink_errors(cluster, link)
        lines.append(f"\t Link {link.index}: Replay Errors: {replay}")
        lines.append(f"\t Link {link.index}: Recovery Errors: {recovery}")
        lines.append(f"\t Link {link.index}: CRC Errors: {crc}")
    return lines


def nvlink_throughput(cluster: Cluster, node: Node, gpu: GPU) -> list[str]:
    """``nvlink -gt d``: data KiB each link has sent and received."""
    lines = [gpu_title(gpu)]
    for link in gpu.nvlinks:
        tx, rx = telemetry.nvlink_traffic_kib(cluster, node, gpu, link)
        lines.append(f"\t Link {link.index}: Data Tx: {tx} KiB")
        lines.append(f"\t Link {link.index}: Data Rx: {rx} KiB")
    return lines


def nvlink_capabilities(cluster: Cluster, gpu: GPU) -> list[str]:
    lines = [gpu_title(gpu)]
    for link in gpu.nvlinks:
        if not link.up:
            continue
        for cap, value in (("P2P is supported", "true"), ("Access to system memory supported", "true"),
                           ("P2P atomics supported", "true"), ("System memory atomics supported", "true"),
                           ("SLI is supported", "false"), ("Link is supported", "false")):
            lines.append(f"\t Link {link.index}, {cap}: {value}")
    return lines
