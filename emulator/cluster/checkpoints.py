"""The run's checkpoints: the saves that finished, the shards on the parallel filesystem, the latest pointer.

Saves fall where :mod:`emulator.cluster.timeline` places them and take the
write time of :mod:`emulator.cluster.steps`; a save still being written
shows its shards growing. A save a fault broke is what PyTorch DCP leaves
when one rank's write raises: every rank's ``__<rank>_0.distcp`` exists, the
failed rank's is short (written up to the error), and the coordinator never
writes ``.metadata``, which it writes only after every rank's write
succeeded; the latest-checkpoint pointer stays on the last save that did.
Each shard is one Lustre object (stripe count 1) on the OST :func:`shard_ost`
names.
"""

from __future__ import annotations

from emulator.cluster.ids import rng
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
        if begin + prof.checkpoint_write_s <= now and step not in run.broken_checkpoints:
            latest = step
    return latest


def checkpoint_mtime(cluster: Cluster) -> float:
    """When the latest-checkpoint pointer was last written: the end of the last save that finished."""
    run = cluster.training
    assert run is not None
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    done = [begin + prof.checkpoint_write_s for step, begin, _finish in sched.saves_between(sched.steady_s, now)
            if step not in run.broken_checkpoints]
    return max((d for d in done if d <= now), default=sched.started_s - 600.0)


def checkpoint_files(cluster: Cluster, keep: int = 3) -> dict[str, tuple[int, float]]:
    """Files of the checkpoint directory now: absolute path -> (size in bytes, mtime offset s).

    The last ``keep`` finished saves, each a ``step_NNNNNNN`` directory with
    one ``__<rank>_0.distcp`` shard per rank and a ``.metadata`` file written
    last; a save in progress shows its shards growing; a broken save has the
    failed rank's shard short and no ``.metadata``.
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
        failed = run.broken_checkpoints.get(step)
        for r in run.ranks:
            written, at = done, mtime - 0.01 * (len(run.ranks) - r.rank)
            if r.rank == failed:
                written = failed_fraction(cluster, step)
                at = mtime - (1.0 - written) * prof.checkpoint_write_s
            table[f"{base}/__{r.rank}_0.distcp"] = (int(shard * written), at)
        if done >= 1.0 and failed is None:
            table[f"{base}/.metadata"] = (1_412_000 + 96 * len(run.ranks), mtime)
    return table


def failed_fraction(cluster: Cluster, step: int) -> float:
    """How much of its shard the failed rank of a broken save wrote before its write raised."""
    return round(rng(cluster.seed, "ckpt-failed", step).uniform(0.18, 0.82), 3)


def shard_ost(cluster: Cluster, step: int, rank: int) -> int:
    """The OST index that holds rank ``rank``'s shard of the save at ``step`` (stripe count 1).

    The MDS spreads new objects over the OSTs; an OST that filled up holds
    only the shard whose write it stopped (it was nearly full when the save
    began, so the allocator placed one object there).
    """
    run = cluster.training
    count = sum(1 for t in cluster.storage.targets if t.kind == "OST")
    full = run.full_ost if run is not None else None
    if run is not None and full is not None and run.broken_checkpoints.get(step) == rank:
        return full
    index = rng(cluster.seed, "stripe", step, rank).randrange(max(1, count))
    return (index + 1) % count if index == full else index
