"""Port counters as traffic experiences them: the readings that grow with the job's load.

Counters are read at the simulated clock's current instant: the value the
model holds for the clock's start, plus growth. Error counters grow at the
per-second rates a fault set (``NIC.counter_rates``); ``LinkDownedCounter``
counts the link-down events that have happened; the data and packet
counters grow with the traffic the training job puts on the rail NICs of its
nodes, at the rate the step model (:mod:`emulator.cluster.steps`) gives. A
reset (``perfquery -R``) stores the raw values as a baseline that later reads
subtract; the adapter's physical-layer counters (:mod:`emulator.cluster.phy`)
are not touched by it. The two ends of a cable count for themselves: traffic
is mirrored (what one end transmits the other receives), symbol and receive
errors count only at the end whose receiver sees them (a fault's weak receive
lane sits in the node's transceiver), link recoveries and link-downs at both
ends, since the link retrains as one. The subnet manager keeps counters of its
own.
"""

from __future__ import annotations

import math

from emulator.cluster import steps
from emulator.cluster.hardware import NIC, PORT_COUNTERS
from emulator.cluster.ids import rng
from emulator.cluster.links import (
    ACK_BYTES,
    ACK_EVERY,
    DATA_COUNTERS,
    DOWNLINKS,
    MTU_BYTES,
    PACKET_BYTES,
    RAILS,
    Cabling,
    cabling,
    effective_gbps,
    port_active,
)
from emulator.cluster.model import Cluster, Node

#: Counters of events the link goes through as one: both ends retrain, both count.
LINK_EVENT_COUNTERS = ("LinkErrorRecoveryCounter", "LinkDownedCounter")

#: Traffic counters one end transmits as the other receives, in (transmit, receive) pairs.
MIRRORED = (("PortXmitData", "PortRcvData"), ("PortXmitPkts", "PortRcvPkts"),
            ("PortUnicastXmitPkts", "PortUnicastRcvPkts"), ("PortMulticastXmitPkts", "PortMulticastRcvPkts"))


def _job_nodes(cluster: Cluster) -> set[str]:
    """Nodes the training job runs on now (empty when no job is running)."""
    run = cluster.training
    if run is None:
        return set()
    for job in cluster.slurm.jobs:
        if job.job_id == run.job_id:
            return set(job.nodes) if job.state == "RUNNING" else set()
    return {rank.node for rank in run.ranks}



def job_rail_gbps(cluster: Cluster) -> float:
    """Average rate (Gb/s, each direction) every rail of the job carries.

    Each step's gradient all-reduce moves ``2(k-1)/k`` of the gradient bytes
    through every node's NICs (k nodes), split over its eight rails; spread
    over the step time of :func:`emulator.cluster.steps.profile`, so a slower
    step (one degraded port bounds the ring) means less traffic on every rail.
    A single-node job keeps its collectives on NVLink.
    """
    nodes = _job_nodes(cluster)
    run = cluster.training
    if run is None or len(nodes) < 2:
        return 0.0

    try:
        step_s = steps.profile(cluster).step_s
    except (ValueError, ZeroDivisionError):
        return 0.0
    if not math.isfinite(step_s) or step_s <= 0:
        return 0.0
    k = len(nodes)
    grad_bytes = run.params_b * 1e9 * 2.0 / (max(1, run.tp) * max(1, run.pp))
    per_rail = 2.0 * (k - 1) / k * grad_bytes / RAILS
    return per_rail * 8 / 1e9 / step_s



def traffic_gbps(cluster: Cluster, node: Node, nic: NIC, rail_gbps: float | None = None) -> float:
    """Average data rate (Gb/s, each direction) the job puts on one port now.

    ``rail_gbps`` is :func:`job_rail_gbps` when the caller computed it already
    (a tool reading many ports computes it once).
    """
    if nic.role != "compute" or effective_gbps(nic) <= 0 or node.name not in _job_nodes(cluster):
        return 0.0
    return job_rail_gbps(cluster) if rail_gbps is None else rail_gbps



def _traffic_seconds(cluster: Cluster, t: float) -> float:
    """Seconds of the job's traffic since the clock's start: none flows once a rank hangs."""
    run = cluster.training
    hang = run.hang_s if run is not None else None
    return t if hang is None else max(0.0, min(t, hang))



def _sm_mads(cluster: Cluster, node: Node, nic: NIC, t: float) -> int:
    """MADs the subnet manager's sweeps put on an active IB port each way since the clock's start."""
    if nic.link_layer != "InfiniBand" or not port_active(node, nic):
        return 0
    return int((t + nic.lid % SM_SWEEP_S) / SM_SWEEP_S)



def raw_counters(cluster: Cluster, node: Node, nic: NIC, rail_gbps: float | None = None) -> dict[str, int]:
    """Every port counter since boot at the current simulated instant (64-bit, no reset).

    The job's all-reduce moves the same bytes each way through every rail port of
    its nodes: full-MTU data packets, one coalesced ACK per :data:`ACK_EVERY` of them
    back, and on a port whose receiver sees physical errors the packets the far end
    resends on top of what it receives. Every active
    port also answers the subnet manager's sweeps. Errored received packets
    (``PortRcvErrors``) need received packets: they grow only while the job's traffic
    arrives, while symbol errors and link recoveries count on an idle link too.
    """
    t = cluster.clock.elapsed
    byte_rate = traffic_gbps(cluster, node, nic, rail_gbps) * 1e9 / 8
    busy = _traffic_seconds(cluster, t) if byte_rate else 0.0
    values: dict[str, int] = {}
    for name in PORT_COUNTERS:
        span = busy if name == "PortRcvErrors" else t
        values[name] = int(nic.counters.get(name, 0) + nic.counter_rates.get(name, 0.0) * span)
    values["LinkDownedCounter"] += sum(1 for at in nic.link_down_events if at <= t)
    data_pkts = byte_rate * busy / MTU_BYTES
    acks = data_pkts / ACK_EVERY
    mads = _sm_mads(cluster, node, nic, t)
    # Errors at this port's receiver cost retransmissions: the far end resends, this end receives more.
    received = data_pkts * (1.0 + nic.retransmit_fraction)
    values["PortXmitData"] = nic.xmit_data + int((data_pkts * PACKET_BYTES + acks * ACK_BYTES) / 4) + mads * MAD_WORDS
    values["PortRcvData"] = nic.rcv_data + int((received * PACKET_BYTES + acks * ACK_BYTES) / 4) + mads * MAD_WORDS
    values["PortXmitPkts"] = nic.xmit_pkts + int(data_pkts + acks) + mads
    values["PortRcvPkts"] = nic.rcv_pkts + int(received + acks) + mads
    values["PortMulticastXmitPkts"] = 40 + nic.lid % 17
    values["PortMulticastRcvPkts"] = 6000 + nic.lid * 7 % 997
    values["PortUnicastXmitPkts"] = max(0, values["PortXmitPkts"] - values["PortMulticastXmitPkts"])
    values["PortUnicastRcvPkts"] = max(0, values["PortRcvPkts"] - values["PortMulticastRcvPkts"])
    return values



def counters(cluster: Cluster, node: Node, nic: NIC, rail_gbps: float | None = None) -> dict[str, int]:
    """Port counters as a reader sees them now: since boot, or since the last reset."""
    values = raw_counters(cluster, node, nic, rail_gbps)
    for name, base in nic.counter_baseline.items():
        values[name] = max(0, values[name] - base)
    return values



def reset_counters(cluster: Cluster, node: Node, nic: NIC, rail_gbps: float | None = None) -> None:
    """Clear the port's PMA counters now (``perfquery -R``, ``ibdiagnet --pc``); the adapter's
    physical-layer counters (:mod:`emulator.cluster.phy`) keep theirs."""
    nic.counter_baseline = raw_counters(cluster, node, nic, rail_gbps)



def clamp(value: int, bits: int) -> int:
    """A PMA counter of ``bits`` width saturates at all ones instead of wrapping."""
    return min(value, (1 << bits) - 1)



def raw_switch_counters(cluster: Cluster, name: str, port: int, rail_gbps: float | None = None,
                        cables: Cabling | None = None) -> dict[str, int]:
    """Counters of one switch port since boot. A leaf's downlink mirrors the node port's
    traffic (what the node sends the switch receives) and shares its link recoveries and
    link-downs, but its own receiver is clean: the node's receive errors stay on the node's
    side, and the switch transmits to a node without waiting. An uplink of a leaf whose
    nodes sit on a congested path waits to transmit; unused ports read zero."""

    zero = {c: 0 for c in (*PORT_COUNTERS, *DATA_COUNTERS)}
    kind, _ = cluster.switches[name]
    t = cluster.clock.elapsed
    cables = cabling(cluster) if cables is None else cables
    if kind == "leaf" and port <= DOWNLINKS:
        for node, nic in cables.ports.get(name, []):
            if nic.peer_port == port and port_active(node, nic):
                return _far_end(raw_counters(cluster, node, nic, rail_gbps))
        return zero
    spines = cables.spines
    if kind == "leaf" and port - DOWNLINKS <= len(spines):
        r = rng(cluster.seed, "switch", name, port)
        values = dict(zero)
        facing = cables.ports.get(name, [])
        share = max((nic.congestion_share for _, nic in facing), default=0.0)
        # Other tenants' traffic leaves the leaf through its uplinks.
        words = r.randrange(10**12, 10**13) + int(share * 400e9 / 8 / 4 * t)
        values.update(PortXmitData=words, PortRcvData=int(words * 0.97), PortXmitPkts=words // 1032,
                      PortRcvPkts=int(words * 0.97) // 1032)
        values["PortUnicastXmitPkts"], values["PortUnicastRcvPkts"] = values["PortXmitPkts"], values["PortRcvPkts"]
        if share > 0:
            waits = [nic.counter_rates.get("PortXmitWait", 0.0) for _, nic in facing]
            # Adaptive routing spreads the load unevenly over the uplinks.
            spread = 2.5 * r.uniform(0.8, 1.2)
            values["PortXmitWait"] = r.randrange(10**9, 4 * 10**9) + int(max(waits, default=0.0) * spread * t)
        return values
    if kind == "spine":
        leaves = cables.leaves
        if port <= len(leaves) and name in spines:
            return _far_end(raw_switch_counters(cluster, leaves[port - 1], DOWNLINKS + 1 + spines.index(name),
                                                rail_gbps, cables))
    return zero


def _far_end(near: dict[str, int]) -> dict[str, int]:
    """The counters at the other end of a cable from ``near``: the same link recoveries and link-downs (the link
    retrains as a whole), the traffic mirrored (what one end sends the other receives), and a clean receiver."""
    values = {counter: 0 for counter in (*PORT_COUNTERS, *DATA_COUNTERS)}
    for counter in LINK_EVENT_COUNTERS:
        values[counter] = near[counter]
    for a, b in MIRRORED:
        values[a], values[b] = near[b], near[a]
    return values


def switch_counters(cluster: Cluster, name: str, port: int, rail_gbps: float | None = None,
                    cables: Cabling | None = None) -> dict[str, int]:
    """Switch port counters as a reader sees them now (since boot, or since the last reset)."""
    values = raw_switch_counters(cluster, name, port, rail_gbps, cables)
    for key, base in cluster.switch_counter_baseline.get(f"{name}:{port}", {}).items():
        values[key] = max(0, values[key] - base)
    return values



def reset_switch_counters(cluster: Cluster, name: str, port: int, cables: Cabling | None = None) -> None:
    cluster.switch_counter_baseline[f"{name}:{port}"] = raw_switch_counters(cluster, name, port, cables=cables)



#: OpenSM's default sweep_interval (seconds between light sweeps).
SM_SWEEP_S = 10.0



#: How long the SM's host has been up when the clock starts.
SM_UPTIME_S = 41 * 86400.0



#: A MAD on the wire (256-byte MAD + LRH, BTH, DETH, ICRC, VCRC) in 4-byte words.
MAD_WORDS = 73



def _sm_key(rail: int) -> str:
    return f"sm-rail{rail}:1"



def raw_sm_counters(cluster: Cluster, rail: int) -> dict[str, int]:
    """The SM port's counters since its host booted: no errors, one MAD per port per sweep each way."""
    ports = sum(1 for node in cluster.compute_nodes for nic in node.nics
                if nic.role == "compute" and nic.rail == rail and port_active(node, nic))
    ports += sum(1 for kind, r in cluster.switches.values() if r in (rail, -1))
    sweeps = int((SM_UPTIME_S + cluster.clock.elapsed) / SM_SWEEP_S)
    pkts = sweeps * ports
    values = {c: 0 for c in (*PORT_COUNTERS, *DATA_COUNTERS)}
    values.update(PortXmitData=pkts * MAD_WORDS, PortRcvData=pkts * MAD_WORDS, PortXmitPkts=pkts, PortRcvPkts=pkts,
                  PortUnicastXmitPkts=pkts, PortUnicastRcvPkts=pkts)
    return values



def sm_counters(cluster: Cluster, rail: int) -> dict[str, int]:
    """The SM port's counters as a reader sees them now (since boot, or since the last reset)."""
    values = raw_sm_counters(cluster, rail)
    for key, base in cluster.switch_counter_baseline.get(_sm_key(rail), {}).items():
        values[key] = max(0, values[key] - base)
    return values



def reset_sm_counters(cluster: Cluster, rail: int) -> None:
    cluster.switch_counter_baseline[_sm_key(rail)] = raw_sm_counters(cluster, rail)
