"""The collective bandwidth model: how long an NCCL collective takes on the model.

One concept: the time of one collective from the hardware, which needs the
network NCCL picks, the intra-node paths and every algorithm's physics
together. Given a collective, a message size and the ranks (node, local GPU)
taking part, :func:`collective` returns the time, algbw and busbw that
nccl-tests would report, and the algorithm and protocol NCCL chose
(:mod:`emulator.cluster.nccl_algo`: the fastest option of the tuning model,
within what ``NCCL_ALGO``/``NCCL_PROTO`` leave):

* inside one node, NVLink through the NVSwitches: NVLink SHARP (NVLS) for
  all-reduce on more than 4 GPUs (about 480 GB/s busbw on 8 x H100 at 8 GiB:
  the switch reduces, so busbw exceeds the 450 GB/s line rate), a ring
  otherwise (about 370 GB/s); a stopped Fabric Manager makes CUDA
  initialisation fail; a GPU that Fabric Manager left out of the NVLink
  fabric at start-up (:func:`fabric_p2p_lost`) makes NCCL's init fail
  (:func:`check_p2p`), or, with ``NCCL_IGNORE_DISABLED_P2P=1``, sends that
  node's ring through host memory;
* across nodes, a ring bounded by its slowest hop: each node's NICs that
  NCCL selects (``NCCL_IB_HCA``), counted as ``len(NICs) x slowest NIC``
  (:func:`emulator.cluster.links.effective_gbps`, or the GPU's PCIe link for
  GPUDirect RDMA when that is slower), so one port at 200 Gb/s halves the
  whole ring's large-message busbw; a ring that crosses leaf switches is
  tapered by the spine's oversubscription; no usable IB device means the
  TCP socket transport, far slower;
* a tree (Tree, or NVLSTree on NVLS nodes) sends S per node over the network
  on 2 nodes where a ring sends 2(n-1)/n x S (:func:`tree_egress`), so its
  busbw can exceed the ring's network bound there, and NCCL picks it for
  large messages; from 3 nodes on it has no such edge and the ring wins;
* a latency per algorithm and protocol that makes small messages slow, and a
  ramp in message size (NCCL uses fewer channels for small messages).

busbw uses nccl-tests' factors exactly (``doc/PERFORMANCE.md``): AllReduce
``2(n-1)/n``; ReduceScatter, AllGather, AlltoAll ``(n-1)/n``; Broadcast,
Reduce and SendRecv ``1``, whatever the algorithm. Samples carry a small
seeded jitter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from emulator.cluster import memo
from emulator.cluster.gpu_rates import gpu_speed_factor
from emulator.cluster.hardware import GPU, NIC
from emulator.cluster.ids import rng
from emulator.cluster.links import effective_gbps
from emulator.cluster.model import Cluster, Node
from emulator.cluster.nccl_algo import (
    BANDWIDTH_SCALE,
    LATENCY_SCALE,
    Option,
    Topology,
    algorithms_for,
    choose,
    enabled,
    estimated_us,
    predicted_us,
    protocols_for,
)
from emulator.cluster.peers import fabric_manager_up

OPS = ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv")

#: NVLink4 line rate per GPU and direction (GB/s, 18 links).
NVLINK_GBPS = 450.0
#: Asymptotic busbw as a fraction of the NVLink line rate: ring (protocol overhead
#: ~20%) and NVLS (in-switch reduction; busbw is not a wire speed and exceeds it).
RING_EFFICIENCY = 0.88
NVLS_EFFICIENCY = 1.13
#: A tree inside a node is a chain that needs more SMs than NCCL gives it to reach a ring's
#: bandwidth; NVLSTree gets close to NVLS's (sjeaugey, NVIDIA/nccl issue 1649).
TREE_EFFICIENCY = 0.80
NVLSTREE_EFFICIENCY = 0.95
#: NVLS's extra start-up (multicast objects, switch round trip), us: small messages take a ring.
NVLS_LATENCY_US = 8.0
#: Asymptotic fraction of the slowest network hop a ring achieves.
NET_EFFICIENCY = 0.96
ALLTOALL_NET_EFFICIENCY = 0.80
#: The management interface the socket transport falls back to (Gb/s).
SOCKET_IFACE = "eno1"
SOCKET_IFACE_GBITS = 25.0
SOCKET_EFFICIENCY = 0.55
#: Copy bandwidth on one GPU (a one-rank "collective" is a device copy), GB/s.
LOCAL_COPY_GBPS = 1350.0
#: PCIe Gen5 x16 peer path when a GPU has no NVLink left, GB/s.
PCIE_P2P_GBPS = 22.0
#: Through host shared memory when peer-to-peer is disabled, GB/s.
SHM_GBPS = 16.0
#: Message size (bytes) at which the ramp reaches half of its asymptote's reciprocal weight.
RAMP_BYTES = 30 * 2**20


class CollectiveError(Exception):
    """The collective cannot run at all; ``cuda_error`` is the CUDA error string."""

    def __init__(self, node: str, cuda_error: str) -> None:
        super().__init__(f"{node}: {cuda_error}")
        self.node = node
        self.cuda_error = cuda_error


class NcclInitError(CollectiveError):
    """NCCL's communicator init failed: ``cuda_error`` is ``ncclGetErrorString``, ``warning`` the WARN text."""

    def __init__(self, node: str, nccl_error: str, warning: str) -> None:
        super().__init__(node, nccl_error)
        self.warning = warning


#: ncclGetErrorString(ncclUnhandledCudaError) in NCCL 2.21.
UNHANDLED_CUDA = "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw correction factor for ``n`` ranks."""
    if op not in OPS:
        raise ValueError(f"unknown collective: {op}")
    if n <= 0:
        raise ValueError("a collective needs at least one rank")
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def algbw_gbps(size_bytes: int, time_s: float) -> float:
    """algbw as nccl-tests computes it: bytes / seconds / 1e9."""
    return size_bytes / time_s / 1.0e9


def busbw_gbps(op: str, size_bytes: int, time_s: float, n: int) -> float:
    return algbw_gbps(size_bytes, time_s) * bus_factor(op, n)


# -- which network NCCL uses -------------------------------------------------------


@dataclass(frozen=True)
class NetPlan:
    """The network transport NCCL picks on each node, and why."""

    #: "IB" (verbs, InfiniBand or RoCE ports), "Socket" (TCP fallback) or "" (one node).
    transport: str
    #: Per node: the NICs NCCL uses, in device order.
    devices: dict[str, list[NIC]] = field(default_factory=dict)
    #: Per node: aggregate GB/s the ring can push through the node's NICs.
    node_gbps: dict[str, float] = field(default_factory=dict)


def hca_filter(spec: str | None, names: Sequence[str]) -> list[str]:
    """Apply ``NCCL_IB_HCA`` to device names, as NCCL does.

    ``^`` excludes, ``=`` asks for exact names; otherwise each entry is a
    prefix (``mlx5_1`` also matches ``mlx5_10``). ``:port`` suffixes are
    accepted (every model NIC has port 1).
    """
    if not spec:
        return list(names)
    text = spec.strip()
    exclude = text.startswith("^")
    text = text.lstrip("^")
    exact = text.startswith("=")
    text = text.lstrip("=")
    wanted: list[str] = []
    for item in text.split(","):
        name, _, port = item.strip().partition(":")
        if name and (not port or port == "1"):
            wanted.append(name)

    def match(dev: str) -> bool:
        return any(dev == w if exact else dev.startswith(w) for w in wanted)

    return [d for d in names if match(d) != exclude]


def ib_devices(node: Node, env: Mapping[str, str]) -> list[NIC]:
    """The RDMA devices NCCL's IB transport would use on ``node``."""
    active = [nic for nic in node.nics if nic.state == "Active"]
    spec = env.get("NCCL_IB_HCA")
    if spec:
        keep = set(hca_filter(spec, [n.name for n in active]))
        return [n for n in active if n.name in keep]
    rails = [n for n in active if n.role == "compute"]
    # Without a filter NCCL's topology search keeps the NICs next to the GPUs.
    return rails or active


#: Usable GPUDirect RDMA bandwidth of a GPU's PCIe link per generation at x16, GB/s.
PCIE_X16_GBPS = {1: 3.5, 2: 7.0, 3: 13.5, 4: 26.5, 5: 53.0}


def _rail_path_gbps(node: Node, nic: NIC) -> float:
    """GB/s one rail carries: the port's effective rate, or its GPU's PCIe link if that is slower."""
    port = effective_gbps(nic) / 8.0
    if nic.rail is None or nic.rail >= len(node.gpus):
        return port
    gpu = node.gpus[nic.rail]
    pcie = PCIE_X16_GBPS.get(gpu.pcie_gen_current, 53.0) * gpu.pcie_width_current / 16.0
    return min(port, pcie)


def ib_disabled(env: Mapping[str, str]) -> bool:
    """Whether the environment turns the IB transport off (``NCCL_IB_DISABLE=1``, ``NCCL_NET=Socket``)."""
    return env.get("NCCL_IB_DISABLE", "0") not in ("", "0") or env.get("NCCL_NET", "").lower() == "socket"


def net_plan(cluster: Cluster, nodes: Sequence[str], env: Mapping[str, str],
             local: Mapping[str, int] | None = None) -> NetPlan:
    """Choose NET/IB or NET/Socket for a job spanning ``nodes``.

    ``local`` is how many ranks of the communicator sit on each node: a node
    pushes the ring through at most that many of its NICs (one rail per GPU).
    """
    if len(nodes) <= 1:
        return NetPlan(transport="")
    disabled = ib_disabled(env)
    devices: dict[str, list[NIC]] = {}
    for name in nodes:
        node = cluster.node(name)
        devices[name] = [] if disabled or node is None else ib_devices(node, env)
    if any(not devs for devs in devices.values()):
        socket = SOCKET_IFACE_GBITS / 8.0 * SOCKET_EFFICIENCY
        return NetPlan(transport="Socket", node_gbps={n: socket for n in nodes})
    node_gbps = {}
    local = local or {}
    leaves = {devs[0].peer_switch.rsplit("-", 1)[-1] for devs in devices.values()}
    # A ring that leaves its leaf switches crosses the spine, tapered by the oversubscription.
    taper = max(1.0, cluster.oversubscription) if len(leaves) > 1 else 1.0
    for name, devs in devices.items():
        node = cluster.node(name)
        slowest = min(_rail_path_gbps(node, nic) for nic in devs) if node else 0.0
        node_gbps[name] = min(len(devs), local.get(name, len(devs))) * slowest / taper
    return NetPlan(transport="IB", devices=devices, node_gbps=node_gbps)


# -- the collective ----------------------------------------------------------------


@dataclass(frozen=True)
class CollectiveResult:
    op: str
    size_bytes: int
    ranks: int
    time_us: float
    algbw: float               # GB/s
    busbw: float               # GB/s
    algorithm: str             # NVLS / NVLSTree / Ring / Tree / Copy / P2P
    transport: str             # "NVLink", "NET/IB", "NET/Socket", "PCIe", "SHM", "local"
    protocol: str = "Simple"   # LL / LL128 / Simple
    predicted_us: float = 0.0  # the run's time on the hardware, before its jitter
    estimate_us: float = 0.0   # NCCL's estimate, which it picked by and TUNING prints
    option: Option | None = None


def nvls_enabled(env: Mapping[str, str], gpus_per_node: int) -> bool:
    """NCCL sets up NVLink SHARP above 4 GPUs a node on an NVSwitch system unless ``NCCL_NVLS_ENABLE=0``."""
    return gpus_per_node > 4 and env.get("NCCL_NVLS_ENABLE", "1") != "0"


def check_usable(cluster: Cluster, ranks: Sequence[tuple[str, int]]) -> None:
    """Raise :class:`CollectiveError` when CUDA could not even start on a rank."""
    for node_name, gpu_index in ranks:
        node = cluster.node(node_name)
        if node is None or node.role != "compute" or not node.gpus:
            raise CollectiveError(node_name, "no CUDA-capable device is detected")
        present = [g for g in node.gpus if g.present]
        if gpu_index >= len(present):
            raise CollectiveError(node_name, "invalid device ordinal")
        if not fabric_manager_up(node) or present[gpu_index].fabric_state != "Completed":
            raise CollectiveError(node_name, "system not yet initialized")


def fabric_p2p_lost(gpu: GPU) -> bool:
    """Whether Fabric Manager registered the GPU with an error: it is out of NVSwitch routing.

    On HGX H100 (``ACCESS_LINK_FAILURE_MODE=0``) a GPU whose access NVLink failed at start-up
    is removed from routing and loses NVLink peer-to-peer with every other GPU, while CUDA
    still runs on it (NVIDIA Fabric Manager User Guide, *High Availability Modes*).
    """
    return gpu.present and gpu.fabric_state == "Completed" and gpu.fabric_status != "Success"


def ignore_disabled_p2p(env: Mapping[str, str]) -> bool:
    return env.get("NCCL_IGNORE_DISABLED_P2P", "0") not in ("", "0")


def p2p_disabled(env: Mapping[str, str]) -> bool:
    return env.get("NCCL_P2P_DISABLE", "0") not in ("", "0")


def check_p2p(cluster: Cluster, ranks: Sequence[tuple[str, int]], env: Mapping[str, str]) -> None:
    """Raise :class:`NcclInitError` where NCCL's topology check refuses a node's GPUs.

    NCCL sees the GPU's remaining NVLinks to the NVSwitches (a ``PATH_NVL`` to every peer), but
    NVML reports P2P not OK for the pairs; ``ncclTopoCheckP2p`` then WARNs "P2P is disabled
    between NVLINK connected GPUs" and returns ``ncclUnhandledCudaError`` unless
    ``NCCL_IGNORE_DISABLED_P2P`` is set (NVIDIA/nccl ``src/graph/paths.cc``, ``ncclTopoCheckP2p``,
    as in 2.21.5). ``NCCL_P2P_DISABLE=1`` never reaches the check. ``ncclTopoComputePaths``
    checks pairs with the lower device as the second GPU first, so the WARN names
    ``(bad, 0)``, or ``(1, 0)`` when GPU 0 is the bad one.
    """
    if p2p_disabled(env) or ignore_disabled_p2p(env):
        return
    for name, gpus in _by_node(ranks).items():
        node = cluster.node(name)
        if node is None or len(gpus) < 2:
            continue
        bad = sorted(i for i in gpus if i < len(node.gpus) and fabric_p2p_lost(node.gpus[i]))
        if not bad:
            continue
        first, second = (bad[0], min(gpus)) if bad[0] != min(gpus) else (sorted(gpus)[1], bad[0])
        raise NcclInitError(name, UNHANDLED_CUDA,
                            f"P2P is disabled between NVLINK connected GPUs {first} and {second}. This should not be "
                            "the case given their connectivity, and is probably due to a hardware issue. If you "
                            "still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.")


def _by_node(ranks: Sequence[tuple[str, int]]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for node, gpu in ranks:
        grouped.setdefault(node, []).append(gpu)
    return grouped


def _intra(cluster: Cluster, grouped: dict[str, list[int]], env: Mapping[str, str]) -> tuple[float, str, bool]:
    """Asymptotic ring busbw inside the nodes (GB/s), the transport, and whether NVLink SHARP can run."""
    per_node = max(len(g) for g in grouped.values())
    no_links, outside, speed = False, False, 1.0
    for name, gpus in grouped.items():
        node = cluster.node(name)
        assert node is not None
        for i in gpus:
            gpu = node.gpus[i]
            no_links = no_links or not any(lk.up for lk in gpu.nvlinks)
            outside = outside or (len(gpus) > 1 and fabric_p2p_lost(gpu))
            speed = min(speed, gpu_speed_factor(gpu))
    kernel = min(1.0, 1.6 * speed)
    if per_node == 1:
        return LOCAL_COPY_GBPS * kernel, "NVLink", False
    if p2p_disabled(env) or outside:
        # No peer-to-peer: every hop bounces through host memory (NCCL's SHM transport). A GPU
        # outside the NVLink fabric has no P2P with its peers (check_p2p lets it through only
        # with NCCL_IGNORE_DISABLED_P2P=1), and the ring runs at its slowest hop.
        return SHM_GBPS * kernel, "SHM", False
    if no_links:
        return PCIE_P2P_GBPS * kernel, "PCIe", False
    return NVLINK_GBPS * RING_EFFICIENCY * kernel, "NVLink", nvls_enabled(env, per_node)


def _nvls_peak(cluster: Cluster, grouped: dict[str, list[int]]) -> float:
    """NVLink SHARP busbw inside a node: the switch reduces, so busbw exceeds the NVLink line rate."""
    speed = min(gpu_speed_factor(cluster.nodes[name].gpus[i]) for name, gpus in grouped.items() for i in gpus)
    return NVLINK_GBPS * NVLS_EFFICIENCY * min(1.0, 1.6 * speed)


def tree_egress(nodes: int) -> float:
    """Bytes each node sends over the network per byte all-reduced by a tree across ``nodes`` nodes.

    On 2 nodes each node is the root of one of the two binary trees and a leaf of the other: it
    sends half the data up one and half down the other, S in all, where a ring sends
    2(n-1)/n x S. From 3 nodes on, a node is inside one tree and sends up to 2 x S.
    """
    return 1.0 if nodes <= 2 else 2.0


def _net_peak(op: str, plan: NetPlan, n: int, per_node: int) -> float:
    """Asymptotic busbw the network allows (GB/s)."""
    slowest = min(plan.node_gbps.values())
    if op == "alltoall":
        crossing = max(1, n - per_node)
        return slowest * (n - 1) / (per_node * crossing) * ALLTOALL_NET_EFFICIENCY
    if op == "sendrecv":
        return slowest / per_node * NET_EFFICIENCY
    return slowest * NET_EFFICIENCY


def _latency_us(op: str, n: int, nodes: int, transport: str) -> float:
    """Fixed cost of one collective: kernel launch, sync, network round trips."""
    base = {"sendrecv": 6.5, "broadcast": 9.0, "reduce": 9.5, "all_gather": 9.0,
            "reduce_scatter": 9.5, "alltoall": 14.0, "all_reduce": 10.5}[op]
    if n <= 1:
        return 4.2
    if nodes <= 1:
        return base + 0.2 * n
    hop = 45.0 if transport == "NET/Socket" else 5.5
    if op == "all_reduce":
        steps = 2.0 * math.log2(nodes) + 1.0     # double binary tree for small sizes
    elif op == "sendrecv":
        steps = 1.0
    else:
        steps = float(min(nodes, 64))
    return base + 0.2 * min(n, 64) + hop * steps


def _ring_latency_us(op: str, n: int, nodes: int, transport: str) -> float:
    """A ring's start-up: 2(k-1) network hops where a tree needs about 2 log2(k) + 1."""
    if op != "all_reduce" or nodes <= 1:
        return _latency_us(op, n, nodes, transport)
    hop = 45.0 if transport == "NET/Socket" else 5.5
    k = min(nodes, 64)
    return _latency_us(op, n, nodes, transport) + hop * max(1.0, 2.0 * (k - 1) - 2.0 * math.log2(k))


def options(cluster: Cluster, op: str, ranks: Sequence[tuple[str, int]],
            env: Mapping[str, str]) -> tuple[list[Option], str, Topology]:
    """Every (algorithm, protocol) NCCL could run ``op`` with on ``ranks``, the transport, and the topology.

    Asymptotic busbw per algorithm, from the hardware: a ring runs at its slowest hop, NVLink or
    the node's NICs (``len(NICs) x slowest``, each carrying busbw / NICs); a tree moves
    :func:`tree_egress` x S per node over the network instead of 2(n-1)/n x S, so on 2 nodes its
    busbw can exceed what a ring gets from the same NICs, and it is bounded by its intra-node chain;
    NVLS reduces in the NVSwitch (one node), NVLSTree combines that with the tree across nodes.
    A sweep asks once per size: the answer is kept for the rest of a command that changes nothing
    (:mod:`emulator.cluster.memo`), and each caller gets its own list.
    """
    found, transport, topo = memo.kept("collectives.options", (cluster,),
                                       (op, tuple(ranks), tuple(sorted(env.items()))),
                                       lambda: _options(cluster, op, ranks, env))
    return list(found), transport, topo


def _options(cluster: Cluster, op: str, ranks: Sequence[tuple[str, int]],
             env: Mapping[str, str]) -> tuple[tuple[Option, ...], str, Topology]:
    grouped = _by_node(ranks)
    n, nodes = len(ranks), len(grouped)
    per_node = max(len(g) for g in grouped.values())
    intra, transport, nvls = _intra(cluster, grouped, env)
    ring, net_tree = intra, math.inf
    if nodes > 1:
        plan = net_plan(cluster, list(grouped), env, {k: len(v) for k, v in grouped.items()})
        transport = "NET/IB" if plan.transport == "IB" else "NET/Socket"
        ring = min(intra, _net_peak(op, plan, n, per_node))
        net_tree = min(plan.node_gbps.values()) * NET_EFFICIENCY * bus_factor(op, n) / tree_egress(nodes)
    topo = Topology(nodes=nodes, per_node=per_node, nvls=nvls)
    tree_lat = _latency_us(op, n, nodes, transport)
    peaks = {"Ring": (ring, _ring_latency_us(op, n, nodes, transport)),
             "Tree": (min(intra * TREE_EFFICIENCY, net_tree),
                      tree_lat + (0.0 if nodes > 1 else 0.4 * per_node)),
             "NVLS": (_nvls_peak(cluster, grouped) if nvls else 0.0, tree_lat + NVLS_LATENCY_US),
             "NVLSTree": (min(_nvls_peak(cluster, grouped) * NVLSTREE_EFFICIENCY, net_tree) if nvls else 0.0,
                          tree_lat + NVLS_LATENCY_US)}
    found = []
    for algorithm in algorithms_for(op, topo) or ("Ring",):
        busbw, latency = peaks[algorithm]
        for protocol in protocols_for(algorithm):
            found.append(Option(algorithm, protocol, latency * LATENCY_SCALE[protocol],
                                busbw * BANDWIDTH_SCALE[protocol]))
    return tuple(found), transport, topo


def ramp_bytes(nodes: int) -> float:
    return RAMP_BYTES * (max(1.0, nodes / 2.0) ** 0.5)


def collective(cluster: Cluster, op: str, size_bytes: int, ranks: Sequence[tuple[str, int]],
               env: Mapping[str, str] | None = None, sample: object = 0, share: float = 1.0) -> CollectiveResult:
    """Time one collective of ``size_bytes`` (nccl-tests' size column) over ``ranks``.

    ``share`` is the part of the GPUs' time the collective gets (below 1 beside another
    job's processes: :func:`emulator.cluster.sharing.time_share`); it stretches the time.
    """
    if op not in OPS:
        raise ValueError(f"unknown collective: {op}")
    if not ranks:
        raise ValueError("a collective needs at least one rank")
    env = env or {}
    check_usable(cluster, ranks)
    check_p2p(cluster, ranks, env)
    n = len(ranks)
    nodes = len(_by_node(ranks))
    factor = bus_factor(op, n) if n > 1 else 1.0
    ramp = ramp_bytes(nodes)
    if n == 1:
        copy = Option("Ring", "Simple", 4.2, _intra(cluster, _by_node(ranks), env)[0])
        chosen, transport, tuned, usable = copy, "local", False, [copy]
    else:
        every, transport, topo = options(cluster, op, ranks, env)
        tuned = bool(algorithms_for(op, topo))
        usable = enabled(every, env, topo) if tuned else every
        best = choose(usable, size_bytes, factor)
        assert best is not None, "a ring is always left"
        chosen = best
    predicted = predicted_us(chosen, size_bytes, factor, ramp, max(o.busbw for o in usable))
    jitter = rng(cluster.seed, "collective", op, size_bytes, n, ",".join(_by_node(ranks)), sample).gauss(0.0, 0.006)
    time_us = predicted * (1.0 + max(-0.02, min(0.02, jitter))) / max(0.01, share)
    alg = algbw_gbps(size_bytes, time_us / 1e6)
    algorithm = "Copy" if n == 1 else chosen.algorithm if tuned else "P2P"
    return CollectiveResult(op=op, size_bytes=size_bytes, ranks=n, time_us=time_us, algbw=alg,
                            busbw=alg * bus_factor(op, n), algorithm=algorithm, transport=transport,
                            protocol=chosen.protocol if tuned else "Simple", predicted_us=predicted,
                            estimate_us=estimated_us(chosen, size_bytes, factor),
                            option=chosen if tuned else None)
