"""The storage team's copy of the servers' job statistics, in the learner's home.

Job statistics are counted on the servers (``obdfilter.*.job_stats`` on each
OSS), which a client cannot read; the team saves what ``lctl get_param
obdfilter.*.job_stats`` printed on its servers to ``~/storage-team/``, in
Lustre 2.15's layout, rendered from
:func:`emulator.cluster.lustre_client.server_job_stats` when read.
"""

from __future__ import annotations

from emulator.cluster.lustre_client import JobIo, server_job_stats
from emulator.cluster.model import Cluster
from emulator.vfs import File

#: Where the team's copy lives, under alice's home.
REPORT = "storage-team/job_stats.txt"
#: The operations each job's entry lists after its bytes, in the kernel's order.
OTHER_OPS = ("getattr", "setattr", "punch", "sync", "destroy", "create", "statfs", "get_info", "set_info",
             "quotactl", "prealloc")


def _line(name: str, unit: str, samples: int, lo: int, hi: int, total: int, sumsq: int) -> str:
    return (f"  {name + ':':<16} {{ samples: {samples:11d}, unit: {unit}, min: {lo:8d}, max: {hi:8d}, "
            f"sum: {total:16d}, sumsq: {sumsq % 2**64:18d} }}\n")  # the kernel's __u64 wraps


def _entry(job: JobIo, snapshot: int) -> str:
    def usecs(n: int, mean: float) -> tuple[int, int, int, int, int]:
        return (n, int(mean * 0.3), int(mean * 4), int(n * mean), int(n * mean * mean * 1.3)) if n else (0, 0, 0, 0, 0)

    rb = job.read_bytes // job.reads if job.reads else 0
    wb = job.write_bytes // job.writes if job.writes else 0
    text = f"- job_id:          \"{job.job_id}\"\n  snapshot_time:   {snapshot}\n"
    text += _line("read_bytes", "bytes", job.reads, rb, rb, job.read_bytes, job.reads * rb * rb)
    text += _line("write_bytes", "bytes", job.writes, wb, wb, job.write_bytes, job.writes * wb * wb)
    text += _line("read", "usecs", *usecs(job.reads, job.read_us))
    text += _line("write", "usecs", *usecs(job.writes, job.write_us))
    for op in OTHER_OPS:
        text += _line(op, "usecs", 0, 0, 0, 0, 0)
    return text


def job_stats_report(cluster: Cluster) -> File:
    """``~/storage-team/job_stats.txt``: every OST's job statistics as the servers print them now."""

    def render() -> str:
        now = cluster.clock.elapsed
        snapshot = int(cluster.clock.at(now).timestamp())
        out = []
        for ost, jobs in server_job_stats(cluster, now).items():
            body = "".join(_entry(job, snapshot) for job in jobs)
            out.append(f"obdfilter.{ost}.job_stats=\njob_stats:\n{body}")
        return "".join(out)

    return File(render, owner="alice", group="alice", live_mtime=lambda: cluster.clock.elapsed)
