"""What ``NCCL_DEBUG=INFO`` prints while a communicator initialises (NCCL 2.21).

Lines are built from the same choices the bandwidth model makes
(:func:`emulator.cluster.collectives.net_plan`): the bootstrap interface,
the IB devices after ``NCCL_IB_HCA``, the socket fallback, NVLS, the rings
and how each channel connects (NVLink P2P inside a node, ``NET/IB/<dev>/
GDRDMA`` or ``NET/Socket`` across). Rank 0 prints its whole init; other
ranks print their bootstrap and network lines, which is what a reader scans
for; under ``TUNING`` rank 0 prints the tuning model's latency/bandwidth table
(:func:`tuning_table`), under ``ENV`` the ``NCCL_ALGO``/``NCCL_PROTO`` it was
given. ``NCCL_DEBUG_SUBSYS`` filters by subsystem like NCCL does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.cluster.collectives import (
    SOCKET_IFACE,
    bus_factor,
    ib_devices,
    ib_disabled,
    net_plan,
    nvls_enabled,
    options,
)
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.cluster.nccl_algo import ALGORITHMS, FUNCTION_OP, FUNCTIONS, MAX_THREADS, PROTOCOLS, enabled
from emulator.cluster.steps import rank_ids

#: Subsystems NCCL prints when NCCL_DEBUG_SUBSYS is unset.
DEFAULT_SUBSYS = frozenset({"INIT", "BOOTSTRAP", "ENV"})
ALL_SUBSYS = frozenset({"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "CALL", "PROXY",
                        "NVLS", "BOOTSTRAP", "REG", "PROFILE"})
CHANNELS = 32


@dataclass(frozen=True)
class Proc:
    """One rank's process: where it runs and its ids."""

    rank: int
    node: str
    gpu: int
    pid: int


def subsystems(env: Mapping[str, str]) -> frozenset[str]:
    """The subsystems ``NCCL_DEBUG_SUBSYS`` selects (``^`` negates, ``ALL`` is everything)."""
    spec = env.get("NCCL_DEBUG_SUBSYS", "")
    if not spec:
        return DEFAULT_SUBSYS
    negate = spec.startswith("^")
    names = {s.strip().upper() for s in spec.lstrip("^").split(",") if s.strip()}
    chosen = ALL_SUBSYS if "ALL" in names else frozenset(names & ALL_SUBSYS)
    return ALL_SUBSYS - chosen if negate else chosen


def level(env: Mapping[str, str]) -> str:
    """NCCL_DEBUG's level, upper-cased ('' when unset)."""
    return env.get("NCCL_DEBUG", "").strip().upper()


def _bootstrap_addr(cluster: Cluster, node: str) -> str:
    host = cluster.node(node)
    return f"{SOCKET_IFACE}:{host.mgmt_ipv4 if host else '0.0.0.0'}<0>"


def _prefix(proc: Proc, tid: int) -> str:
    return f"{proc.node}:{proc.pid}:{tid} [{proc.gpu}] NCCL INFO "


def _ring(nodes: Sequence[str], per_node: Mapping[str, list[Proc]], channel: int) -> list[int]:
    order: list[int] = []
    for name in nodes:
        local = per_node[name]
        shift = channel % max(1, len(local))
        order += [p.rank for p in local[shift:] + local[:shift]]
    return order


def _init_tids(cluster: Cluster, procs: Sequence[Proc], comm: str = "") -> dict[Proc, int]:
    """The TID of the thread that initialises each rank's communicator: a thread of the rank's own process,
    started after it, whose id no process or thread on its node holds (the communicator's pids, a training
    rank's named threads and loader workers, another rank's init thread). A later communicator (``comm``
    names it) is initialised by a thread started later still."""
    taken: dict[str, set[int]] = {}
    for p in procs:
        taken.setdefault(p.node, set()).update(rank_ids(cluster, p.node, p.pid))
    tids: dict[Proc, int] = {}
    later = (comm,) if comm else ()
    for p in procs:
        tid = p.pid + (82 if comm else 18) + rng(cluster.seed, "nccl-tid", p.node, p.pid, *later).randint(0, 40) \
            + p.gpu
        while tid in taken[p.node]:
            tid += 1
        taken[p.node].add(tid)
        tids[p] = tid
    return tids


def init_lines(cluster: Cluster, procs: Sequence[Proc], env: Mapping[str, str], comm: str = "",
               detail: bool = True) -> list[str]:
    """The INFO lines of one communicator's init, in the order a reader sees them.

    ``procs`` carry their ranks in this communicator. The processes' first communicator
    (``comm`` empty) sets up the bootstrap and the network; a later one (``comm`` names it,
    such as a tensor-parallel group) only starts and completes on every rank, and its rank 0
    prints its whole init when ``detail`` is set.
    """
    lvl = level(env)
    if lvl not in ("INFO", "TRACE", "VERSION"):
        return []
    v = cluster.versions
    version = f"NCCL version {v.nccl}+cuda{v.nccl_cuda}"
    if lvl == "VERSION":
        return [] if comm else [version]
    later = (comm,) if comm else ()
    subs = subsystems(env)
    nodes: list[str] = []
    per_node: dict[str, list[Proc]] = {}
    for p in procs:
        if p.node not in per_node:
            nodes.append(p.node)
            per_node[p.node] = []
        per_node[p.node].append(p)
    plan = net_plan(cluster, nodes, env)
    nranks = len(procs)
    local_max = max(len(v) for v in per_node.values())
    use_nvls = nvls_enabled(env, local_max)
    comm_id = f"0x{rng(cluster.seed, 'nccl-commid', nranks, ','.join(nodes), *later).getrandbits(64):016x}"
    lines: list[str] = []

    def comm_of(proc: Proc) -> str:
        """The rank's ncclComm_t, a heap address of its own process, 16-byte aligned, as %p prints it."""
        bits = rng(cluster.seed, "nccl-comm", nranks, proc.node, proc.pid, proc.gpu, *later).getrandbits(36)
        return f"0x{0x550000000000 + (bits << 4):x}"

    def emit(proc: Proc, tid: int, text: str, tags: frozenset[str] = frozenset({"INIT"})) -> None:
        if tags & subs:
            lines.append(_prefix(proc, tid) + text)

    init_tids = _init_tids(cluster, procs, comm)
    # A later communicator finds each process's bootstrap and network set up already.
    started: set[tuple[str, int]] = {(p.node, p.pid) for p in procs} if comm else set()
    for p in procs:
        main_tid = p.pid
        init_tid = init_tids[p]
        node = cluster.node(p.node)
        gpu = node.gpus[p.gpu] if node and p.gpu < len(node.gpus) else None
        bus = gpu.pci_bus_id[9:11].lower() + "000" if gpu else "0"
        first_in_process = (p.node, p.pid) not in started
        started.add((p.node, p.pid))
        usable = node is not None and plan.transport != "Socket" and not ib_disabled(env)
        devs = plan.devices.get(p.node) or (ib_devices(node, env) if node and usable else [])
        if first_in_process:
            emit(p, main_tid, f"Bootstrap : Using {_bootstrap_addr(cluster, p.node)}", frozenset({"INIT", "BOOTSTRAP"}))
            emit(p, main_tid, "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
                              "directory No plugin found (libnccl-net.so), using internal implementation",
                 frozenset({"INIT", "NET"}))
            emit(p, main_tid, "cudaDriverVersion 12040")
            if p.rank == 0:
                lines.append(version)
            if not devs:
                emit(p, init_tid, "NET/IB : No device found.", frozenset({"INIT", "NET"}))
                emit(p, init_tid, f"NET/Socket : Using [0]{_bootstrap_addr(cluster, p.node)}",
                     frozenset({"INIT", "NET"}))
            else:
                listing = " ".join(f"[{i}]{n.name}:1/{'IB' if n.link_layer == 'InfiniBand' else 'RoCE'}"
                                   for i, n in enumerate(devs))
                emit(p, init_tid, f"NET/IB : Using {listing} [RO]; OOB {_bootstrap_addr(cluster, p.node)}",
                     frozenset({"INIT", "NET"}))
        if first_in_process or comm:
            # The process sets its network up once; each communicator then picks it.
            emit(p, init_tid, "Using non-device net plugin version 0")
            emit(p, init_tid, f"Using network {'IB' if devs else 'Socket'}")
        emit(p, init_tid, f"ncclCommInitRank comm {comm_of(p)} rank {p.rank} nranks {nranks} cudaDev {p.gpu} "
                          f"nvmlDev {p.gpu} busId {bus} commId {comm_id} - Init START")
        if p.rank != 0 or not detail:
            continue
        if local_max > 4:
            emit(p, init_tid, f"NVLS multicast support is available on dev {p.gpu}", frozenset({"INIT", "NVLS"}))
        emit(p, init_tid, f"comm {comm_of(p)} rank 0 nRanks {nranks} nNodes {len(nodes)} localRanks {local_max} "
                          f"localRank 0 MNNVL 0")
        for c in range(CHANNELS):
            ring = _ring(nodes, per_node, c)
            emit(p, init_tid, f"Channel {c:02d}/{CHANNELS} : " + "".join(f"{r:4d}" for r in ring),
                 frozenset({"INIT", "GRAPH"}))
        emit(p, init_tid, "P2P Chunksize set to 131072")
        by_rank = {q.rank: q for q in procs}
        for c in range(min(CHANNELS, 2)):
            ring = _ring(nodes, per_node, c)
            i = ring.index(0)
            prev, nxt = by_rank[ring[i - 1]], by_rank[ring[(i + 1) % len(ring)]]
            for peer, direction in ((prev, "receive"), (nxt, "send")):
                if peer.node == p.node:
                    if direction == "send":
                        local = "SHM/direct/direct" if env.get("NCCL_P2P_DISABLE", "0") not in ("", "0") \
                            else "P2P/CUMEM/read"
                        emit(p, init_tid, f"Channel {c:02d}/0 : 0[{p.gpu}] -> {peer.rank}[{peer.gpu}] via {local}",
                             frozenset({"INIT", "P2P"}))
                    continue
                used = len(plan.devices.get(p.node, [])) or 1
                via = "NET/Socket/0" if plan.transport == "Socket" else f"NET/IB/{p.gpu % used}/GDRDMA"
                arrow = f"{peer.rank}[{peer.gpu}] -> 0[{p.gpu}] [receive]" if direction == "receive" else \
                    f"0[{p.gpu}] -> {peer.rank}[{peer.gpu}] [send]"
                emit(p, init_tid, f"Channel {c:02d}/0 : {arrow} via {via}", frozenset({"INIT", "NET"}))
        emit(p, init_tid, "Connected all rings")
        if len(nodes) > 1:
            emit(p, init_tid, "Connected all trees")
        if use_nvls:
            emit(p, init_tid, f"NVLS comm {comm_of(p)} headRank 0 nHeads 1 buffSize 1048576 memSize 2097152 "
                              f"nvlsPerRankSize 201326592 nvlsTotalSize {201326592 * local_max}",
                 frozenset({"INIT", "NVLS"}))
            emit(p, init_tid, "Connected NVLS", frozenset({"INIT", "NVLS"}))
        for var in ("NCCL_PROTO", "NCCL_ALGO"):
            if var in env:
                emit(p, init_tid, f"{var} set by environment to {env[var]}", frozenset({"ENV"}))
        for text in tuning_table(cluster, procs, env):
            emit(p, init_tid, text, frozenset({"TUNING"}))
        emit(p, init_tid, "threadThresholds 8/8/64 | 128/8/64 | 512 | 512", frozenset({"INIT", "TUNING"}))
        nvls_ch = 16 if use_nvls else 0
        emit(p, init_tid, f"{CHANNELS} coll channels, {CHANNELS} collnet channels, {nvls_ch} nvls channels, "
                          f"{CHANNELS} p2p channels, {CHANNELS} p2p channels per peer")
    for p in procs:
        tid = init_tids[p]
        node = cluster.node(p.node)
        gpu = node.gpus[p.gpu] if node and p.gpu < len(node.gpus) else None
        bus = gpu.pci_bus_id[9:11].lower() + "000" if gpu else "0"
        emit(p, tid, f"ncclCommInitRank comm {comm_of(p)} rank {p.rank} nranks {nranks} cudaDev {p.gpu} "
                     f"nvmlDev {p.gpu} busId {bus} commId {comm_id} - Init COMPLETE")
    return lines


def tuning_table(cluster: Cluster, procs: Sequence[Proc], env: Mapping[str, str]) -> list[str]:
    """The latency/bandwidth table rank 0 prints under ``TUNING`` (NCCL 2.19 to 2.21 layout).

    Per collective, algorithm and protocol: the model's latency (us) and algorithm bandwidth
    (GB/s); an algorithm the topology lacks shows 0.0/0.0, one ``NCCL_ALGO``/``NCCL_PROTO``
    turned off keeps its latency and shows a bandwidth of 0.0.
    """
    ranks = [(p.node, p.gpu) for p in procs]
    cells: dict[tuple[str, str, str], tuple[float, float]] = {}
    for function in FUNCTIONS:
        op = FUNCTION_OP[function]
        every, _transport, topo = options(cluster, op, ranks, env)
        left = set(enabled(every, env, topo))
        factor = bus_factor(op, len(ranks))
        for o in every:
            cells[(function, o.algorithm, o.protocol)] = (o.latency_us, o.busbw / factor if o in left else 0.0)
    lines = []
    for block in range(0, len(ALGORITHMS), 3):
        algos = ALGORITHMS[block:block + 3]
        lines.append("  Algorithm   |" + "".join(f" {'':>14}   {a:>14}   {'':>14} |" for a in algos))
        lines.append("  Protocol    |" + "".join(f" {p:>14} |" for _ in algos for p in PROTOCOLS))
        lines.append(" Max NThreads |" + "".join(f" {t:>14d} |" for a in algos for t in MAX_THREADS[a]))
        for function in FUNCTIONS:
            row = "".join(_cell(*cells.get((function, a, p), (0.0, 0.0))) for a in algos for p in PROTOCOLS)
            lines.append(f"{function:>13} |" + row)
    return lines


def _cell(latency: float, bandwidth: float) -> str:
    return f"{latency:8.1f}/{bandwidth:6.1f} |"
