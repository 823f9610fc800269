"""Faults of the fabric domain (see :mod:`emulator.cluster.faults`).

Each fault changes port state only: negotiated rate and width, link state,
counter levels and growth rates, link-down events and the kernel lines they
leave. Tools and the performance model read the consequences through
:mod:`emulator.cluster.links`. Targets are the training job's nodes and rail
ports, chosen by the seeded source unless the lab names them.
"""

from __future__ import annotations

import random

from emulator.cluster.accounts import OPERATORS, uid_of
from emulator.cluster.faults.base import Fault
from emulator.cluster.faults.gpu_targets import utc_stamp
from emulator.cluster.hardware import NIC, KernelEvent
from emulator.cluster.links import LANE_SPEEDS
from emulator.cluster.model import Cluster, Node
from emulator.cluster.scheduler import compress_hostlist


def _target(cluster: Cluster, r: random.Random, params: dict[str, object]) -> tuple[Node, NIC]:
    """The node and compute port a fault hits: named by the lab, or seeded."""
    name = str(params.get("node") or "")
    if name:
        node = cluster.node(name)
        if node is None or node.role != "compute":
            raise ValueError(f"no compute node named {name!r}")
    else:
        pool = cluster.training.nodes if cluster.training and cluster.training.nodes else \
            [n.name for n in cluster.compute_nodes]
        node = cluster.nodes[r.choice(pool)]
    rails = [nic for nic in node.nics if nic.role == "compute"]
    port = str(params.get("port") or "")
    if port:
        found = [nic for nic in rails if nic.name == port]
        if not found:
            raise ValueError(f"{node.name} has no compute port named {port!r}")
        return node, found[0]
    return node, r.choice(rails)


def _truth(node: Node, nic: NIC, cause: str, **extra: str) -> dict[str, str]:
    return {"node": node.name, "port": nic.name, "lid": str(nic.lid), "guid": nic.port_guid,
            "netdev": nic.netdev, "cause": cause, **extra}


def _log_link_change(node: Node, nic: NIC, at: float, up_after: float | None) -> None:
    """Kernel lines of a port going down (and back up ``up_after`` seconds later)."""
    node.hw.kernel_log.append(KernelEvent(at, f"mlx5_core {nic.pci_bus_id} {nic.netdev}: Link down", "warn"))
    if up_after is not None:
        node.hw.kernel_log.append(KernelEvent(at + up_after, f"mlx5_core {nic.pci_bus_id} {nic.netdev}: Link up"))
    node.hw.kernel_log.sort(key=lambda e: e.offset_s)


def link_rate(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A port trained below its rated speed (HDR instead of NDR, or 2X instead of 4X),
    still Active and LinkUp: only the rate tells.

    Why, by width. At 4X an operator narrowed the port's enabled speeds with ``mlxlink --speeds``
    during a cable test days ago and toggled it, and never set them back: sudo's audit lines name
    who and when, ``mlxlink`` shows the narrowed Enabled Link Speed, and the toggle left one link
    down/up pair in the kernel log and in LinkDownedCounter. At 2X two receive lanes of the
    transceiver see no light (a broken fibre pair), so the link trained on the two that do:
    ``mlxlink -m`` reads them at -40 dBm.
    """
    node, nic = _target(cluster, r, params)
    width = str(params["width"]).upper()
    if width not in ("1X", "2X", "4X"):
        raise ValueError(f"link-rate: width must be 1X, 2X or 4X, not {width!r}")
    rate = int(str(params["rate_gbps"]))
    lanes = int(width[:-1])
    if lanes < 4 and rate == 200:
        rate = 100 * lanes      # a narrower link keeps NDR lanes: 2X is 200, 1X is 100
    if float(rate) / lanes not in LANE_SPEEDS:
        raise ValueError(f"link-rate: {rate} Gb/s is not a valid rate for width {width}")
    if rate >= nic.max_rate_gbps:
        raise ValueError(f"link-rate: {rate} Gb/s is not below the port's rated {nic.max_rate_gbps} Gb/s")
    nic.rate_gbps, nic.width = rate, width
    if lanes < 4:
        nic.dark_lanes = tuple(range(lanes, 4))
        return _truth(node, nic, "link-rate", rate=str(rate), width=width, why="dark-lanes")
    speed = LANE_SPEEDS[float(rate) / lanes]
    nic.enabled_speeds = (speed,)
    user = r.choice(OPERATORS)
    at = round(-r.uniform(26.0, 90.0) * 3600.0, 3)
    shell = f"{user:>8} : TTY=pts/{r.randint(0, 3)} ; PWD=/home/{user} ; USER=root ; COMMAND=/usr/bin/mlxlink -d {nic.name} "
    pam = f"pam_unix(sudo:session): session opened for user root(uid=0) by {user}(uid={uid_of(user)})"
    toggle = at + round(r.uniform(8.0, 40.0), 3)
    for when, args in ((at, f"--speeds {speed}"), (toggle, "-a TG")):
        node.hw.auth_log += [(when, "sudo", shell + args), (when, "sudo", pam),
                             (when + 1.2, "sudo", "pam_unix(sudo:session): session closed for user root")]
    node.hw.auth_log.sort(key=lambda e: e[0])
    nic.link_down_events.append(round(toggle + 0.6, 3))
    _log_link_change(node, nic, round(toggle + 0.6, 3), round(r.uniform(3.0, 6.0), 3))
    return _truth(node, nic, "link-rate", rate=str(rate), width=width, why="enabled-speeds", user=user,
                  time=utc_stamp(cluster, at))


def symbol_errors(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A marginal cable or transceiver: symbol errors and link recoveries keep
    rising, received packets fail their CRC and the retransmits cost bandwidth."""
    node, nic = _target(cluster, r, params)
    per_s = float(str(params["errors_per_s"] or 0)) or round(r.uniform(4.0, 12.0), 1)
    nic.counters["SymbolErrorCounter"] += int(per_s * r.uniform(2400, 5400))
    nic.counters["LinkErrorRecoveryCounter"] += r.randint(3, 9)
    nic.counters["PortRcvErrors"] += int(nic.counters["SymbolErrorCounter"] * 0.35)
    nic.counter_rates["SymbolErrorCounter"] = per_s
    nic.counter_rates["LinkErrorRecoveryCounter"] = per_s / 900.0
    nic.counter_rates["PortRcvErrors"] = per_s * 0.35
    nic.retransmit_fraction = float(str(params["retransmit"]))
    return _truth(node, nic, "symbol-errors", why="weak-lane")


def link_flap(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A link that drops and retrains every few minutes: LinkDownedCounter rises
    and each event leaves a kernel line; between events the port reads Active.
    Its transceiver runs at the top of its temperature range (``mlxlink -m``)."""
    node, nic = _target(cluster, r, params)
    period = float(str(params["period_s"]))
    if period < 30:
        raise ValueError("link-flap: period_s must be at least 30")
    at = -3 * 3600.0 + r.uniform(0, period)
    while at < 6 * 3600.0:
        nic.link_down_events.append(round(at, 3))
        _log_link_change(node, nic, round(at, 3), round(r.uniform(4.0, 9.0), 3))
        at += period * r.uniform(0.6, 1.4)
    nic.counter_rates["LinkErrorRecoveryCounter"] = 2.0 / period
    nic.retransmit_fraction = 0.02
    # Why it flaps: the transceiver runs at the top of its temperature range (a heat sink
    # that lost contact in the cage), and its laser drops out when it crosses the limit.
    nic.module_temp_c = r.randint(73, 75)
    return _truth(node, nic, "link-flap", why="hot-transceiver")


def port_down(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """A port that went down and stayed down (disabled, or polling for a peer)."""
    node, nic = _target(cluster, r, params)
    phys = str(params["phys_state"])
    if phys not in ("Disabled", "Polling"):
        raise ValueError("port-down: phys_state must be Disabled or Polling")
    at = round(-r.uniform(300.0, 1800.0), 3)
    nic.state, nic.phys_state = "Down", phys
    nic.rate_gbps, nic.width = 40, "4X"
    nic.link_down_events.append(at)
    if phys == "Polling":
        # No peer answers: the transceiver or cable went away first.
        node.hw.kernel_log.append(KernelEvent(at - 0.4, f"mlx5_core {nic.pci_bus_id}: Port module event: module 0, "
                                                        "Cable unplugged", "warn"))
    _log_link_change(node, nic, at, None)
    return _truth(node, nic, "port-down")


def congestion(cluster: Cluster, r: random.Random, params: dict[str, object]) -> dict[str, str]:
    """Shared-link congestion: several nodes' ports wait to transmit (PortXmitWait
    rises, no error counter moves) because the leaf uplinks are oversubscribed."""
    pool = cluster.training.nodes if cluster.training and cluster.training.nodes else \
        [n.name for n in cluster.compute_nodes]
    count = max(1, min(int(str(params["nodes"])), len(pool)))
    chosen = sorted(r.sample(pool, count))
    oversubscription = float(str(params["oversubscription"]))
    if oversubscription < 1.0:
        raise ValueError("congestion: oversubscription must be at least 1.0")
    for name in chosen:
        for nic in cluster.nodes[name].nics:
            if nic.role == "compute":
                nic.counter_rates["PortXmitWait"] = round(r.uniform(2.0e5, 6.0e5))
                nic.counters["PortXmitWait"] += r.randint(10**8, 5 * 10**8)
                nic.congestion_share = round((1.0 - 1.0 / oversubscription) * r.uniform(0.8, 1.0), 3)
    cluster.oversubscription = oversubscription
    return {"nodes": compress_hostlist(chosen), "cause": "congestion"}


FAULTS: list[Fault] = [
    Fault("link-rate", "a compute port negotiated below its rated speed, still Active", link_rate,
          {"node": "", "port": "", "rate_gbps": 200, "width": "4X"}),
    Fault("symbol-errors", "a link with rising symbol errors and retransmissions", symbol_errors,
          {"node": "", "port": "", "errors_per_s": 0, "retransmit": 0.12}),
    Fault("link-flap", "a link that goes down and retrains every few minutes", link_flap,
          {"node": "", "port": "", "period_s": 420}),
    Fault("port-down", "a compute port down (disabled or polling)", port_down,
          {"node": "", "port": "", "phys_state": "Disabled"}),
    Fault("congestion", "oversubscribed leaf uplinks: ports of several nodes wait to transmit", congestion,
          {"nodes": 3, "oversubscription": 2.0}),
]
