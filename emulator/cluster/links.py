"""Link rates and port counters as traffic experiences them.

A port's negotiated rate bounds it; rising physical errors (symbol errors,
link recovery) cost retransmissions on top, and a congested path shares it
with other traffic. Collectives and step times read
:func:`effective_gbps`, never the raw fields.

Counters are read at the simulated clock's current instant: the value the
model holds for the clock's start, plus growth. Error counters grow at the
per-second rates a fault set (``NIC.counter_rates``); ``LinkDownedCounter``
counts the link-down events that have happened; the data and packet
counters grow with the traffic the training job puts on the rail NICs of its
nodes. A reset (``perfquery -R``) stores the raw values as a baseline that
later reads subtract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: Data and packet counters, in the order ``perfquery -x`` prints them.
DATA_COUNTERS = (
    "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
    "PortUnicastXmitPkts", "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts",
)

#: Compute rails (NICs) per node that carry the job's inter-node traffic.
RAILS = 8

#: The fabric's MTU: payload bytes of a full data packet.
MTU_BYTES = 4096

#: Bytes a full data packet puts in PortXmitData/PortRcvData (payload plus LRH/BTH/ICRC/VCRC).
PACKET_BYTES = MTU_BYTES + 30

#: An RC acknowledgement (LRH, BTH, AETH, ICRC, VCRC) in bytes, and the data packets one covers.
ACK_BYTES = 30
ACK_EVERY = 16

#: Per-lane speed names by Gb/s per lane, as ``ibstatus`` and ``ibv_devinfo`` name them.
LANE_SPEEDS = {2.5: "SDR", 5.0: "DDR", 10.0: "QDR", 14.0: "FDR", 25.0: "EDR", 50.0: "HDR", 100.0: "NDR", 200.0: "XDR"}

#: ``ibv_devinfo -v`` active_speed enum by Gb/s per lane.
SPEED_ENUM = {2.5: 1, 5.0: 2, 10.0: 4, 14.0: 16, 25.0: 32, 50.0: 64, 100.0: 128, 200.0: 256}

#: ``ibv_devinfo -v`` active_width enum by width.
WIDTH_ENUM = {"1X": 1, "4X": 2, "8X": 4, "12X": 8, "2X": 16}


def effective_gbps(nic: NIC) -> float:
    """Usable bandwidth of a port in Gb/s (0 when it is not Active): the negotiated
    rate, less what retransmissions and other traffic on a congested path take."""
    if nic.state != "Active":
        return 0.0
    return float(nic.rate_gbps) * (1.0 - nic.retransmit_fraction) * (1.0 - nic.congestion_share)


def lanes(nic: NIC) -> int:
    """Number of lanes of the negotiated width (``4X`` -> 4)."""
    return int(nic.width.rstrip("xX") or 4)


def lane_gbps(nic: NIC) -> float:
    """Per-lane signalling rate in Gb/s (NDR 4X at 400 -> 100.0)."""
    return float(nic.rate_gbps) / lanes(nic)


def speed_name(nic: NIC) -> str:
    """The IBTA speed name of the negotiated lane rate: ``NDR``, ``HDR``..."""
    return LANE_SPEEDS.get(lane_gbps(nic), "SDR")


def rate_text(nic: NIC) -> str:
    """The sysfs ``rate`` string: ``400 Gb/sec (4X NDR)``."""
    rate = nic.rate_gbps
    shown = f"{rate:g}" if isinstance(rate, float) else str(rate)
    return f"{shown} Gb/sec ({nic.width.upper()} {speed_name(nic)})"


def port_active(node: Node, nic: NIC) -> bool:
    """Whether the fabric reaches the port: trained Active on a powered host. The HCA's
    firmware answers management queries even while the host's OS is down."""
    return nic.state == "Active" and (node.bmc is None or node.bmc.power_on)


def port_lid(nic: NIC) -> int:
    """The LID a port reports: its SM-assigned LID on InfiniBand, 0 on an Ethernet (RoCE) port."""
    return nic.lid if nic.link_layer == "InfiniBand" else 0


def port_sm_lid(nic: NIC) -> int:
    """The subnet manager's LID as the port reports it (0 on an Ethernet port)."""
    return nic.sm_lid if nic.link_layer == "InfiniBand" else 0


# -- traffic ------------------------------------------------------------------------


# -- counters -------------------------------------------------------------------------


# -- bit error rates --------------------------------------------------------------------


# -- switch ports ------------------------------------------------------------------------------
#
# Leaf ports 1-32 face the nodes' rail ports (NIC.peer_switch/peer_port); ports 33 and up are
# the leaf's uplinks, one per spine. A spine's port k faces leaf k (in name order). Switch
# port counters are computed from the ports they face, so one cable reads alike at both ends.

#: Ports of a leaf that face the nodes; uplinks start after them.
DOWNLINKS = 32
#: Ports of every switch.
SWITCH_PORTS = 64


def switch_lid(cluster: Cluster, name: str) -> int:
    """Switches take the LIDs after the subnet manager's (2, 3, ...), in name order."""
    return 2 + sorted(cluster.switches).index(name)


def switch_by_lid(cluster: Cluster, lid: int) -> str | None:
    names = sorted(cluster.switches)
    return names[lid - 2] if 2 <= lid < 2 + len(names) else None


def switch_guid(cluster: Cluster, name: str) -> str:
    return f"0x{0xFC6A1C:06x}0300{rng(cluster.seed, 'switch', name).getrandbits(24):06x}"


@dataclass
class Cabling:
    """Who is cabled to what: compute ports by leaf, and the switches in name order.
    A tool reading many switch ports builds it once (:func:`cabling`) and passes it on."""

    ports: dict[str, list[tuple[Node, NIC]]]
    leaves: list[str]
    spines: list[str]


def cabling(cluster: Cluster) -> Cabling:
    ports: dict[str, list[tuple[Node, NIC]]] = {}
    for node in cluster.compute_nodes:
        for nic in node.nics:
            if nic.role == "compute" and nic.peer_switch:
                ports.setdefault(nic.peer_switch, []).append((node, nic))
    leaves = sorted(name for name, (kind, _) in cluster.switches.items() if kind == "leaf")
    spines = sorted(name for name, (kind, _) in cluster.switches.items() if kind == "spine")
    return Cabling(ports, leaves, spines)


def switch_port_exists(cluster: Cluster, name: str, port: int) -> bool:
    return name in cluster.switches and 1 <= port <= SWITCH_PORTS


# -- the subnet manager's port ------------------------------------------------------------------
#
# The compute fabric is one subnet: LIDs are unique across the rails and the spines join every
# rail's leaves. Its master SM answers at LID 1 (the LID every port reports as "SM lid"). Its port carries management datagrams only: one SMP to every port of the subnet
# per light sweep, and the replies.


