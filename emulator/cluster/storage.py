"""Storage in the model: the shared parallel filesystem and each node's NVMe.

The parallel filesystem has finite aggregate bandwidth and a metadata
service; the training run's input reads and checkpoint writes draw on it, and
other tenants' load (a fault) competes with them. :mod:`perf` turns this into
read latency, checkpoint write time and input wait.
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
