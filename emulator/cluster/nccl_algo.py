"""NCCL's choice of algorithm and protocol for one collective call (NCCL 2.21).

NCCL keeps, per collective, a table of (algorithm, protocol) options, each
with a latency and a bandwidth from its model of the topology; for every call
it takes the option with the lowest ``latency + size / bandwidth``
(``src/graph/tuning.cc``, ``src/enqueue.cc``). This module holds the names
and the rules of that table: which algorithms a collective has on a topology,
which protocols each algorithm runs, what ``NCCL_ALGO`` and ``NCCL_PROTO``
leave enabled (parsed as NCCL 2.21's ``parseList`` does: a comma-separated,
case-insensitive list, ``^`` to exclude, unknown names silently ignored) with
2.21's fallbacks when they leave nothing (``ncclTopoTuneModel``: Ring and Tree
back on when none of Ring, Tree, NVLS, NVLSTree is left; a ring for a
collective with no option left), NCCL's estimate of each option's time and
the pick by it, and the time a call then takes on the hardware. The latencies and peaks come from
:mod:`emulator.cluster.collectives`, which knows the hardware.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: ncclAlgoStr and ncclProtoStr of NCCL 2.21, in index order (the TUNING lines print indices).
ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree")
PROTOCOLS = ("LL", "LL128", "Simple")
#: ncclFuncStr of the tuned collectives, in the order the TUNING table prints them.
FUNCTIONS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
OP_FUNCTION = {"broadcast": "Broadcast", "reduce": "Reduce", "all_gather": "AllGather",
               "reduce_scatter": "ReduceScatter", "all_reduce": "AllReduce"}
FUNCTION_OP = {v: k for k, v in OP_FUNCTION.items()}

#: Latency and bandwidth of each protocol relative to the algorithm's own: LL (8-byte stores with a
#: flag) has the lowest latency and about a quarter of the bandwidth, LL128 most of it, Simple all
#: of it after a longer start-up (tuning.cc: LL busBw x 1/4 on a ring, LL128 x 0.92).
LATENCY_SCALE = {"LL": 1.0, "LL128": 1.1, "Simple": 1.2}
BANDWIDTH_SCALE = {"LL": 0.25, "LL128": 0.92, "Simple": 1.0}
#: Max NThreads of the TUNING table (NCCL 2.19 to 2.21 on sm90): LL 512, LL128 640, Simple 512 for
#: Tree and Ring; the NVLink SHARP and CollNet algorithms run Simple only, with 640 threads.
MAX_THREADS = {"Tree": (512, 640, 512), "Ring": (512, 640, 512), "CollNetDirect": (0, 0, 640),
               "CollNetChain": (0, 0, 640), "NVLS": (0, 0, 640), "NVLSTree": (0, 0, 640)}


@dataclass(frozen=True)
class Topology:
    """What the tuning model knows of the communicator."""

    nodes: int
    per_node: int
    #: NVLink SHARP usable: NVSwitch multicast, more than 4 GPUs a node, not disabled.
    nvls: bool


@dataclass(frozen=True)
class Option:
    """One (algorithm, protocol) cell of the table: its latency (us) and asymptotic busbw (GB/s)."""

    algorithm: str
    protocol: str
    latency_us: float
    busbw: float

    @property
    def algo_index(self) -> int:
        return ALGORITHMS.index(self.algorithm)

    @property
    def proto_index(self) -> int:
        return PROTOCOLS.index(self.protocol)


def parse_list(spec: str | None, names: Sequence[str]) -> frozenset[str]:
    """The names ``spec`` enables, as NCCL 2.21's ``parseList`` reads it (unset: all of them)."""
    if spec is None or spec == "":
        return frozenset(names)
    negate = spec.startswith("^")
    tokens = {t.strip().lower() for t in spec.lstrip("^").split(",") if t.strip()}
    picked = {n for n in names if n.lower() in tokens}
    return frozenset(set(names) - picked) if negate else frozenset(picked)


def algorithms_for(op: str, topo: Topology) -> tuple[str, ...]:
    """The algorithms NCCL 2.21 can run ``op`` with on this topology ((): not tuned, point-to-point).

    CollNet needs a network plugin with in-network reduction (SHARP) and ``NCCL_COLLNET_ENABLE=1``;
    the model's nodes load no plugin, so it is never among them.
    """
    if op == "all_reduce":
        found = ["Tree", "Ring"]
        if topo.nvls:
            found.append("NVLS" if topo.nodes == 1 else "NVLSTree")
        return tuple(found)
    if op in OP_FUNCTION:
        return ("Ring",)
    return ()


def protocols_for(algorithm: str) -> tuple[str, ...]:
    """Protocols an algorithm runs: NVLink SHARP and CollNet only Simple."""
    return PROTOCOLS if algorithm in ("Tree", "Ring") else ("Simple",)


def enabled(options: Sequence[Option], env: Mapping[str, str], topo: Topology) -> list[Option]:
    """The options ``NCCL_ALGO`` and ``NCCL_PROTO`` leave, with NCCL 2.21's fallbacks.

    NVLS runs on one node only, NVLSTree across nodes only, CollNet never without its plugin; if
    what is left holds none of Ring, Tree, NVLS and NVLSTree, NCCL turns Ring and Tree back on (a
    typo in ``NCCL_ALGO`` silently costs NVLS). A collective with no option left runs as a ring
    with every protocol (``ringbdw``, "at least set ring algo available").
    """
    algos = set(parse_list(env.get("NCCL_ALGO"), ALGORITHMS)) - {"CollNetDirect", "CollNetChain"}
    algos.discard("NVLSTree" if topo.nodes == 1 else "NVLS")
    if not algos & {"Ring", "Tree", "NVLS", "NVLSTree"}:
        algos |= {"Ring", "Tree"}
    protos = parse_list(env.get("NCCL_PROTO"), PROTOCOLS)
    left = [o for o in options if o.algorithm in algos and o.protocol in protos]
    return left or [o for o in options if o.algorithm == "Ring"]


def estimated_us(option: Option, size_bytes: int, factor: float) -> float:
    """NCCL's own estimate for one call, the one it picks by and prints: ``latency + size / (1000 x bandwidth)``,
    the latency in us and the bandwidth the algorithm bandwidth in GB/s of its TUNING table (busbw / factor)
    (``ncclTopoGetAlgoTime``, ``src/graph/tuning.cc``, less its tree correction and ring plateau)."""
    return option.latency_us + size_bytes / (1e3 * option.busbw / factor) if option.busbw > 0 else math.inf


def predicted_us(option: Option, size_bytes: int, factor: float, ramp_bytes: float, peak_busbw: float) -> float:
    """The run's time for one call on the hardware: NCCL's estimate plus what small messages lose to fewer
    channels and a shallower pipeline, ``factor x sqrt(ramp_bytes x size) / peak``.

    The loss depends on the size and on the best bandwidth the call could use (``peak_busbw``), not on
    the option picked, so the option NCCL's estimate picks is also the fastest on the hardware, and a
    larger message never takes less time. At ``ramp_bytes`` a call reaches half its peak.
    """
    if size_bytes <= 0:
        return option.latency_us * 0.2
    return estimated_us(option, size_bytes, factor) + factor * math.sqrt(ramp_bytes * size_bytes) / (1e3 * peak_busbw)


def choose(options: Sequence[Option], size_bytes: int, factor: float) -> Option | None:
    """The option NCCL's estimate says is fastest for this size (the first in table order on a tie), or None
    when none is left."""
    best: Option | None = None
    best_time = math.inf
    for option in options:
        t = estimated_us(option, size_bytes, factor)
        if best is None or t < best_time:
            best, best_time = option, t
    return best


def tuning_line(option: Option, size_bytes: int, time_us: float) -> str:
    """The per-call TUNING line rank 0 prints in 2.21 (``enqueue.cc``, topoGetAlgoInfo)."""
    return f"{size_bytes} Bytes -> Algo {option.algo_index} proto {option.proto_index} time {time_us:f}"
