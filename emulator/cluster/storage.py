"""Storage in the model: the shared parallel filesystem and each node's NVMe.

The parallel filesystem has finite aggregate bandwidth and a metadata
service; the training run's input reads and checkpoint writes draw on it, and
other tenants' load (a fault) competes with them. The functions at the end
turn this into read throughput and latency, metadata latency and checkpoint
write bandwidth; :mod:`emulator.cluster.steps` turns those into input wait
and checkpoint stalls.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Target:
    """A Lustre object or metadata storage target."""

    name: str                  # lustre-OST0003
    kind: str                  # "OST" or "MDT"
    size_kib: int
    used_kib: int
    server: str                # oss02


@dataclass
class ParallelFS:
    fsname: str = "lustre"
    mountpoint: str = "/lustre"
    mgs_nid: str = "10.30.0.10@o2ib"
    targets: list[Target] = field(default_factory=list)
    #: Aggregate bandwidth the servers deliver, GB/s.
    read_gbps: float = 120.0
    write_gbps: float = 80.0
    #: Median metadata operation latency (open/stat) when unloaded, ms.
    metadata_ms: float = 0.4
    #: Load from other tenants as a fraction of capacity (0 = idle fs).
    background_read_load: float = 0.10
    background_write_load: float = 0.05
    background_metadata_load: float = 0.05
    #: Client-side page cache hit ratio for the input data set (0..1).
    client_cache_hit: float = 0.6


@dataclass
class LocalDisk:
    device: str = "/dev/md0"
    mountpoint: str = "/raid"
    members: tuple[str, ...] = tuple(f"nvme{i}n1" for i in range(2, 10))
    member_bytes: int = 3_840_755_982_336
    used_fraction: float = 0.12
    read_gbps: float = 25.0
    write_gbps: float = 12.0


# -- performance under load ----------------------------------------------------------
#
# The parallel filesystem is a shared queue: latency grows as 1 / (1 - utilisation)
# and a client gets the share of bandwidth the other tenants leave. Used by the
# step-time model (input wait, checkpoint saves) and by iostat/lfs-style tools.

#: What one client node can move to or from the parallel filesystem, GB/s
#: (two 200 Gb/s storage ports, and the Lustre client's own ceiling).
CLIENT_READ_GBPS = 20.0
CLIENT_WRITE_GBPS = 4.0
#: Service time of one small read (an input shard chunk) on an idle filesystem, ms.
READ_SERVICE_MS = 0.9
#: Utilisation is capped below 1 so queueing latency stays finite.
MAX_UTILISATION = 0.998


def queued(base: float, load: float) -> float:
    """M/M/1-style stretch of a service time at utilisation ``load``."""
    return base / (1.0 - min(MAX_UTILISATION, max(0.0, load)))


def read_throughput_gbps(fs: ParallelFS, clients: int = 1) -> float:
    """Read bandwidth one client gets when ``clients`` nodes read at once, GB/s."""
    free = fs.read_gbps * max(1.0 - MAX_UTILISATION, 1.0 - fs.background_read_load)
    return min(CLIENT_READ_GBPS, free / max(1, clients))


def read_latency_ms(fs: ParallelFS) -> float:
    """Median latency of one input read that misses the client cache, ms."""
    return queued(READ_SERVICE_MS, fs.background_read_load)


def metadata_latency_ms(fs: ParallelFS) -> float:
    """Median open/stat latency at the metadata server under the current load, ms."""
    return queued(fs.metadata_ms, fs.background_metadata_load)


def checkpoint_write_gbps(fs: ParallelFS, writers: int = 1) -> float:
    """Aggregate write bandwidth ``writers`` client nodes get together, GB/s."""
    free = fs.write_gbps * max(1.0 - MAX_UTILISATION, 1.0 - fs.background_write_load)
    return min(free, CLIENT_WRITE_GBPS * max(1, writers))


def checkpoint_write_s(fs: ParallelFS, size_bytes: float, writers: int = 1) -> float:
    """Seconds to write ``size_bytes`` from ``writers`` nodes (plus file creates)."""
    creates = 4 * max(1, writers) * metadata_latency_ms(fs) / 1000.0
    return size_bytes / (checkpoint_write_gbps(fs, writers) * 1e9) + creates


def utilisation(fs: ParallelFS, read_gbps: float = 0.0, write_gbps: float = 0.0) -> tuple[float, float]:
    """Read and write utilisation (0..1) of the servers with the given client load on top."""
    r = min(1.0, fs.background_read_load + read_gbps / fs.read_gbps)
    w = min(1.0, fs.background_write_load + write_gbps / fs.write_gbps)
    return r, w
