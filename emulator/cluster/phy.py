"""A port's physical layer as the adapter sees it: its transceiver lanes and its PPCNT counters.

Each receive lane of the port's transceiver has its own optical power; a
lane's raw (pre-FEC) bit error rate follows its margin, so a marginal lane
dominates the raw errors and the healthy lanes carry a few each, none the
same. The adapter's physical-layer counters (PPCNT, what ``mlxlink -c``
reads) are separate from the PMA port counters :mod:`emulator.cluster.counters`
holds: ``perfquery -R`` leaves them alone, only ``mlxlink --pc`` clears them.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from emulator.cluster import counters
from emulator.cluster.hardware import NIC
from emulator.cluster.ids import rng
from emulator.cluster.links import lanes

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: The counters PPCNT keeps of its own, by their PMA names.
PHY_COUNTERS = ("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter")

#: Received power (dBm) a lane reads when no light arrives.
DARK_DBM = -40.0

#: Raw BER of a lane at the reference power, and how many decades it rises per dB below it:
#: an SR4 lane a dB or two above 0 dBm runs near 1e-10 pre-FEC, one near its -10.4 dBm alarm
#: several decades worse.
REFERENCE_DBM = 1.5
REFERENCE_LOG_BER = -9.7
DECADES_PER_DB = 0.47


def lane_optics(cluster: Cluster, node: Node, nic: NIC,
                r: random.Random | None = None) -> tuple[list[float], list[float]]:
    """Receive and transmit power (dBm) of the module's four lanes.

    A port with rising symbol errors has one weak receive lane; a link trained at
    2X sees no light on two; a port polling for a peer receives none, a disabled one
    sends none. ``r`` is the module's random source when a caller draws more from it.
    """
    r = rng(cluster.seed, node.name, nic.name, "module") if r is None else r
    rx = [round(r.uniform(0.9, 2.1), 3) for _ in range(4)]
    tx = [round(r.uniform(0.8, 1.6), 3) for _ in range(4)]
    if nic.counter_rates.get("SymbolErrorCounter", 0.0) > 0:
        rx[r.randrange(4)] = round(r.uniform(-8.6, -7.2), 3)
    for lane in nic.dark_lanes:     # a broken fibre pair: the link trained on the lanes that see light
        rx[lane] = DARK_DBM
    if nic.phys_state == "Polling":
        rx = [DARK_DBM] * 4
    if nic.phys_state == "Disabled":
        tx = [DARK_DBM] * 4
    return rx, tx


def lane_bers(cluster: Cluster, node: Node, nic: NIC) -> list[float]:
    """Raw (pre-FEC) bit error rate of each lane the link trained on, from its receive power."""
    if nic.state != "Active":
        return []
    rx, _ = lane_optics(cluster, node, nic)
    lit = [power for power in rx if power > DARK_DBM][:lanes(nic)]
    r = rng(cluster.seed, node.name, nic.name, "lane-ber")
    offset = 0.0 if nic.link_layer == "InfiniBand" else -0.5
    return [10 ** (REFERENCE_LOG_BER + offset - DECADES_PER_DB * (power - REFERENCE_DBM) + r.uniform(-0.35, 0.35))
            for power in lit]


def seconds_since_clear(cluster: Cluster, node: Node, nic: NIC) -> float:
    """Seconds since the physical-layer counters were last cleared (at boot unless ``mlxlink --pc``)."""
    cleared = nic.phy_cleared_s
    if cleared is None:
        cleared = node.health.boots[-1].offset_s if node.health.boots else 0.0
    return max(0.0, cluster.clock.elapsed - cleared)


def lane_errors(cluster: Cluster, node: Node, nic: NIC) -> list[int]:
    """Raw physical errors of each lane since the clear: its BER times the bits it carried."""
    bers = lane_bers(cluster, node, nic)
    if not bers:
        return []
    lane_bits = nic.rate_gbps * 1e9 / len(bers) * seconds_since_clear(cluster, node, nic)
    return [int(ber * lane_bits) for ber in bers]


def raw_ber(cluster: Cluster, node: Node, nic: NIC) -> float:
    """The link's raw (pre-FEC) BER: the mean of its lanes'."""
    bers = lane_bers(cluster, node, nic)
    return sum(bers) / len(bers) if bers else 0.0


def phy_counters(cluster: Cluster, node: Node, nic: NIC) -> dict[str, int]:
    """Symbol errors, link recoveries and link downs since the physical-layer clear."""
    raw = counters.raw_counters(cluster, node, nic, rail_gbps=0.0)
    return {name: max(0, raw[name] - nic.phy_baseline.get(name, 0)) for name in PHY_COUNTERS}


def clear(cluster: Cluster, node: Node, nic: NIC) -> None:
    """Clear the physical-layer counters now (``mlxlink --pc``); the PMA counters keep counting."""
    raw = counters.raw_counters(cluster, node, nic, rail_gbps=0.0)
    nic.phy_baseline = {name: raw[name] for name in PHY_COUNTERS}
    nic.phy_cleared_s = cluster.clock.elapsed


def symbol_ber(cluster: Cluster, node: Node, nic: NIC) -> float:
    """Post-FEC (symbol) bit error rate: symbol errors since the clear per bit carried."""
    bits = nic.rate_gbps * 1e9 * seconds_since_clear(cluster, node, nic) if nic.state == "Active" else 0.0
    if bits <= 0:
        return 0.0
    return phy_counters(cluster, node, nic)["SymbolErrorCounter"] / bits


def ber_text(value: float) -> str:
    """A BER as mlxlink prints it: ``2E-9``; no error at all reads ``15E-255``."""
    if value <= 0:
        return "15E-255"
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}E{int(exponent)}"
