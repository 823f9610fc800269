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


def removed_checkpoints(cluster: Cluster) -> list[tuple[int, float]]:
    """(step, when) of each step directory the run's retention removed by now.

    After each save that finished, the training script keeps the newest
    ``run.keep_last`` finished saves and removes every older step directory
    (a failed save raises before retention runs). The run starts with the
    previous job's newest ``keep_last`` saves, the one it resumed from last.
    """
    run = cluster.training
    if run is None:
        return []
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    every, keep = sched.every, max(1, run.keep_last)
    present = [sched.resume_step - k * every for k in range(keep - 1, -1, -1) if sched.resume_step - k * every > 0]
    kept = list(present)
    removed: list[tuple[int, float]] = []
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        done = begin + prof.checkpoint_write_s
        present.append(step)
        if done > now or step in run.broken_checkpoints:
            continue
        kept = (kept + [step])[-keep:]
        for old in [s for s in present if s < kept[0]]:
            removed.append((old, done + _REMOVE_S))
            present.remove(old)
    return removed


#: How long after a save finished its retention removed the old step directory, s.
_REMOVE_S = 0.41


def checkpoint_files(cluster: Cluster) -> dict[str, tuple[int, float]]:
    """Files of the checkpoint directory now: absolute path -> (size in bytes, mtime offset s).

    Each save the retention has not removed (:func:`removed_checkpoints`) is a
    ``step_NNNNNNN`` directory with one ``__<rank>_0.distcp`` shard per rank
    and a ``.metadata`` file written last; a save in progress shows its shards
    growing; a broken save has the failed rank's shard short and no
    ``.metadata``.
    """
    run = cluster.training
    if run is None:
        return {}
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    shard = int(prof.checkpoint_bytes / max(1, run.world_size))
    interval = sched.every * sched.step_s + prof.checkpoint_stall_s
    # (step, fraction written, when the writing stopped)
    saves: list[tuple[int, float, float]] = [
        (sched.resume_step - k * sched.every, 1.0, sched.started_s - 600.0 - k * interval)
        for k in range(max(1, run.keep_last) - 1, -1, -1) if sched.resume_step - k * sched.every > 0]
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        write = prof.checkpoint_write_s
        done = min(1.0, (now - begin) / max(1e-6, write))
        saves.append((step, done, min(now, begin + write)))
    gone_steps = {step for step, _ in removed_checkpoints(cluster)}
    table: dict[str, tuple[int, float]] = {}
    for step, done, mtime in saves:
        if step in gone_steps:
            continue
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
    """How much of its shard the failed rank of a broken save wrote before its write raised.

    A quota runs out during the save's last writes (the other ranks' OSTs
    still held grant to finish theirs); an OST or a GPU can fail anywhere.
    """
    run = cluster.training
    low, high = (0.86, 0.97) if run is not None and run.checkpoint_why == "quota" else (0.18, 0.82)
    return round(rng(cluster.seed, "ckpt-failed", step).uniform(low, high), 3)


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
