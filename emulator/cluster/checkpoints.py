"""The run's checkpoints: the saves that finished, the shards on the parallel filesystem, the latest pointer.

Saves fall where :mod:`emulator.cluster.timeline` places them and take the
write time of :mod:`emulator.cluster.steps`; a save still being written
shows its shards growing, and a save a fault broke lacks a shard.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster
from emulator.cluster.steps import profile
from emulator.cluster.timeline import failed_at, schedule


def latest_checkpoint(cluster: Cluster) -> int:
    """The step the latest-checkpoint pointer names (the last save that finished)."""
    run = cluster.training
    if run is None:
        return 0
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    latest = sched.resume_step
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        if begin + prof.checkpoint_write_s <= now:
            latest = step
    return latest


def checkpoint_mtime(cluster: Cluster) -> float:
    """When the latest-checkpoint pointer was last written: the end of the last save that finished."""
    run = cluster.training
    assert run is not None
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    done = [begin + prof.checkpoint_write_s for _step, begin, _finish in sched.saves_between(sched.steady_s, now)]
    return max((d for d in done if d <= now), default=sched.started_s - 600.0)


def checkpoint_files(cluster: Cluster, keep: int = 3) -> dict[str, tuple[int, float]]:
    """Files of the checkpoint directory now: absolute path -> (size in bytes, mtime offset s).

    The last ``keep`` finished saves, each a ``step_NNNNNNN`` directory with
    one ``__<rank>_0.distcp`` shard per rank and a ``.metadata`` file written
    last; a save in progress shows its shards growing; a broken save lacks a
    shard.
    """
    run = cluster.training
    if run is None:
        return {}
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    shard = int(prof.checkpoint_bytes / max(1, run.world_size))
    # (step, fraction written, when the writing stopped)
    saves: list[tuple[int, float, float]] = [(sched.resume_step, 1.0, sched.started_s - 600.0)]
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        write = prof.checkpoint_write_s
        done = min(1.0, (now - begin) / max(1e-6, write))
        saves.append((step, done, min(now, begin + write)))
    finished = [s for s in saves if s[1] >= 1.0][-keep:]
    partial = [s for s in saves if s[1] < 1.0]
    table: dict[str, tuple[int, float]] = {}
    for step, done, mtime in finished + partial:
        base = f"{run.checkpoint_dir}/step_{step:07d}"
        missing = run.broken_checkpoints.get(step)
        for r in run.ranks:
            if r.rank != missing:
                table[f"{base}/__{r.rank}_0.distcp"] = (int(shard * done), mtime - 0.01 * (len(run.ranks) - r.rank))
        if done >= 1.0:
            table[f"{base}/.metadata"] = (1_412_000 + 96 * len(run.ranks), mtime)
    return table
