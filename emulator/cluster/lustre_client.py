"""What a node's Lustre client has counted: per-OST RPCs and their waits, and the mount's syscalls.

The client (``osc`` per OST, ``llite`` per mount) counts only its own
traffic; other tenants show in how long each RPC waits for the servers and in
how many RPCs queue in flight. The counts come from the training run on the
node since it reached its steady state: the loader's random sequence reads
(one small RPC each) and its share of every checkpoint save (1 MiB RPCs). The
waits come from :mod:`emulator.cluster.storage`'s queueing model, with the
load before the fault changed it (``run.degraded_s``) and after.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.cluster import storage
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster, Node
from emulator.cluster.steps import profile
from emulator.cluster.timeline import schedule

#: Pages in a read RPC of one tokenised sequence (4096 tokens of 4 bytes) and in a checkpoint write RPC.
READ_PAGES = 4
WRITE_PAGES = 256
PAGE = 4096
#: The client's default cap on concurrent RPCs per OST (osc.*.max_rpcs_in_flight).
MAX_IN_FLIGHT = 8
#: Service time of one 1 MiB write RPC on an idle server, ms.
WRITE_SERVICE_MS = 1.6


@dataclass
class Osc:
    """One OST as one client node sees it."""

    ost: str                                   # lustre-OST0003
    read_rpcs: int = 0
    write_rpcs: int = 0
    read_in_flight: int = 0
    write_in_flight: int = 0
    #: RPCs by how many were in flight when each was sent (1..8), reads and writes.
    read_flight: dict[int, int] = field(default_factory=dict)
    write_flight: dict[int, int] = field(default_factory=dict)
    read_wait_us: list[float] = field(default_factory=list)    # mean wait per phase, µs (before, after)
    write_wait_us: list[float] = field(default_factory=list)
    read_by_phase: list[int] = field(default_factory=list)
    write_by_phase: list[int] = field(default_factory=list)
    pings: int = 0
    #: 1 MiB write RPCs one checkpoint save sends to this OST (one object, written from its start).
    rpcs_per_save: int = 0


@dataclass
class ClientView:
    """A node's Lustre client at ``now``: its instance tag, mount time and one :class:`Osc` per OST."""

    tag: str                                   # ffff8d2a1c3e9000, the superblock address in the names
    mounted_s: float
    now_s: float
    oscs: list[Osc]
    #: Median metadata operation (open, stat) latency before the fault and after, µs.
    metadata_us: list[float] = field(default_factory=list)


def client_tag(cluster: Cluster, node: Node) -> str:
    """The hex address the client's device names carry (``lustre-OST0000-osc-<tag>``)."""
    return f"ffff{rng(cluster.seed, node.name, 'sb').getrandbits(48):012x}"


def _in_flight(load: float) -> int:
    """RPCs a busy reader keeps queued at one OST: the M/M/1 queue length, capped at the client's slots."""
    load = min(storage.MAX_UTILISATION, max(0.0, load))
    return min(MAX_IN_FLIGHT, int(load / (1.0 - load)))


def client_view(cluster: Cluster, node: Node, now: float, mounted_s: float) -> ClientView:
    """What ``node``'s client has counted from ``mounted_s`` to ``now``."""
    fs = cluster.storage
    osts = [t for t in fs.targets if t.kind == "OST"]
    oscs = [Osc(ost=t.name) for t in osts]
    idle = storage.ParallelFS()
    loads = [(idle.background_read_load, idle.background_write_load),
             (fs.background_read_load, fs.background_write_load)]
    for osc in oscs:
        osc.pings = max(1, int((now - mounted_s) / 25.0))
        osc.read_by_phase, osc.write_by_phase = [0, 0], [0, 0]
        osc.read_wait_us = [storage.queued(storage.READ_SERVICE_MS, r) * 1000 for r, _ in loads]
        osc.write_wait_us = [storage.queued(WRITE_SERVICE_MS, w) * 1000 for _, w in loads]
    metadata = [storage.queued(fs.metadata_ms, idle.background_metadata_load) * 1000,
                storage.metadata_latency_ms(fs) * 1000]
    run = cluster.training
    if run is None or node.name not in run.nodes:
        return ClientView(client_tag(cluster, node), mounted_s, now, oscs, metadata)
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    change = run.degraded_s if run.degraded_s is not None else now
    change = min(max(change, sched.steady_s), now)
    per_node = sum(1 for r in run.ranks if r.node == node.name)
    reads_per_step = per_node * run.micro_batch * run.grad_accum
    steps = [max(0, sched.completed_at(change) - sched.resume_step),
             max(0, sched.completed_at(now) - sched.completed_at(change))]
    write_bytes = prof.checkpoint_bytes / max(1, len(run.nodes))
    saves = sched.saves_between(sched.steady_s, now)
    writes = [sum(1 for _, begin, _ in saves if begin < change), sum(1 for _, begin, _ in saves if begin >= change)]
    rpcs_per_save = int(write_bytes / (WRITE_PAGES * PAGE) / len(oscs))
    saving = any(begin <= now < begin + prof.checkpoint_write_s for _, begin, _ in saves)
    for i, osc in enumerate(oscs):
        share = [(n * reads_per_step + i) // len(oscs) for n in steps]
        osc.read_by_phase = share
        osc.write_by_phase = [n * rpcs_per_save for n in writes]
        osc.read_rpcs, osc.write_rpcs = sum(share), sum(osc.write_by_phase)
        osc.rpcs_per_save = rpcs_per_save
        for phase, (r_load, _) in enumerate(loads):
            depth = max(1, _in_flight(r_load))
            osc.read_flight[depth] = osc.read_flight.get(depth, 0) + share[phase]
            # A save fills every slot: the client pushes its 1 MiB writes as fast as the servers take them.
            osc.write_flight[MAX_IN_FLIGHT] = osc.write_flight.get(MAX_IN_FLIGHT, 0) + osc.write_by_phase[phase]
        osc.read_in_flight = _in_flight(fs.background_read_load)
        osc.write_in_flight = MAX_IN_FLIGHT if saving else 0
    return ClientView(client_tag(cluster, node), mounted_s, now, oscs, metadata)


@dataclass
class JobIo:
    """What one OST counted for one job id (``obdfilter.*.job_stats``): RPCs, bytes and mean service time."""

    job_id: str
    reads: int
    writes: int
    read_bytes: int
    write_bytes: int
    read_us: float
    write_us: float


#: Pages of a bulk RPC from a streaming reader (a tenant scanning shards): 1 MiB.
STREAM_PAGES = 256


def server_job_stats(cluster: Cluster, now: float) -> dict[str, list[JobIo]]:
    """Per OST, the jobs of this cluster that did I/O there: the training run (the sum of its nodes'
    clients) and, when another tenant saturates the servers, that tenant's job, whose reads are the load."""
    fs = cluster.storage
    osts = [t.name for t in fs.targets if t.kind == "OST"]
    out: dict[str, list[JobIo]] = {name: [] for name in osts}
    run = cluster.training
    if run is not None:
        views = [client_view(cluster, node, now, now) for node in cluster.compute_nodes if node.name in run.nodes]
        for i, name in enumerate(osts):
            oscs = [v.oscs[i] for v in views]
            reads = sum(o.read_rpcs for o in oscs)
            writes = sum(o.write_rpcs for o in oscs)
            read_us = sum(sum(c * w for c, w in zip(o.read_by_phase, o.read_wait_us)) for o in oscs) / max(1, reads)
            write_us = sum(sum(c * w for c, w in zip(o.write_by_phase, o.write_wait_us)) for o in oscs) / max(1, writes)
            out[name].append(JobIo(str(run.job_id), reads, writes, reads * READ_PAGES * PAGE,
                                   writes * WRITE_PAGES * PAGE, read_us, write_us))
    tenant = next((f.truth.get("tenant_job") for f in cluster.faults if f.truth.get("tenant_job")), None)
    job = next((j for j in cluster.slurm.jobs if str(j.job_id) == tenant), None)
    if job is not None and job.start_s is not None and now > job.start_s:
        idle = storage.ParallelFS()
        extra = max(0.0, fs.background_read_load - idle.background_read_load) * fs.read_gbps * 1e9
        wait = storage.queued(storage.READ_SERVICE_MS, fs.background_read_load) * 1000
        for name in osts:
            rpcs = int(extra * (now - job.start_s) / len(osts) / (STREAM_PAGES * PAGE))
            out[name].append(JobIo(str(job.job_id), rpcs, 0, rpcs * STREAM_PAGES * PAGE, 0, wait, 0.0))
    return out
