"""Where a project's quota lives: each target's usage and the block limit the quota master granted it.

Lustre enforces a quota on the targets: the quota master (on MDT0000) hands
each target (quota slave) part of the hard limit as a grant, and a target
refuses a write with EDQUOT once its usage reaches its grant and the master
has none left to give (``lfs quota -v`` prints each target's usage and grant
as its ``limit``, and marks a target at its grant with ``*``). The project's
checkpoint shards sit on the OSTs :func:`emulator.cluster.checkpoints.shard_ost`
names, the rest of its data spread over all OSTs, and its inodes' blocks on
the MDT. When a save failed for ``quota`` the master had granted the whole
hard limit: the OST under the failed rank's shard had used its grant, while
the other OSTs kept a few hundred MiB of theirs (enough for the other ranks'
last writes), so the project's total sits just under its hard limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.checkpoints import checkpoint_files, shard_ost
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster

#: KiB of MDT blocks per file of the project (its inode and directory blocks).
MDT_KIB_PER_FILE = 4


@dataclass(frozen=True)
class TargetQuota:
    """One target's share of a quota id: usage and what the master granted it (KiB; 0 is no grant)."""

    uuid: str          # lustre-OST0003_UUID
    kind: str          # "MDT" or "OST"
    used_kib: int
    granted_kib: int
    files: int         # inodes (MDT only)


def grant_slack(cluster: Cluster) -> tuple[int, dict[int, int]]:
    """(the MDT's unused grant, each OST index's unused grant), KiB, for the project of a run whose save ran
    out of quota: every OST but the failed shard's kept a little; the failed shard's OST kept none."""
    r = rng(cluster.seed, "quota-grant")
    osts = [t for t in cluster.storage.targets if t.kind == "OST"]
    failed = _failed_ost(cluster)
    return r.randint(1_024, 4_096), {i: 0 if i == failed else r.randint(65_536, 393_216) for i in range(len(osts))}


def _failed_ost(cluster: Cluster) -> int | None:
    run = cluster.training
    if run is None or run.checkpoint_why != "quota" or not run.broken_checkpoints:
        return None
    step, rank = max(run.broken_checkpoints.items())
    return shard_ost(cluster, step, rank)


def target_quotas(cluster: Cluster, used_kib: int, files: int, hard_kib: int) -> list[TargetQuota]:
    """Each target's usage and grant for an id using ``used_kib`` in ``files`` files under ``hard_kib``.

    The checkpoint shards count on their OSTs (for the run's project), the
    rest spreads over the OSTs by a fixed weight per id; an id with no limit
    has no grants.
    """
    run = cluster.training
    osts = [t for t in cluster.storage.targets if t.kind == "OST"]
    mdts = [t for t in cluster.storage.targets if t.kind == "MDT"]
    mdt_used = min(used_kib, files * MDT_KIB_PER_FILE)
    on_ost = [0] * len(osts)
    if hard_kib and run is not None:
        for path, (size, _) in checkpoint_files(cluster).items():
            name = path.rsplit("/", 1)[-1]
            if name.startswith("__"):
                step = int(path.rsplit("/", 2)[-2].removeprefix("step_"))
                on_ost[shard_ost(cluster, step, int(name[2:].split("_")[0]))] += -(-size // 4096) * 4
    rest = max(0, used_kib - mdt_used - sum(on_ost))
    weights = [rng(cluster.seed, "quota-spread", used_kib > 0, i).uniform(0.8, 1.2) for i in range(len(osts))]
    shares = [int(rest * w / sum(weights)) for w in weights]
    shares[0] += rest - sum(shares)
    ost_used = [a + b for a, b in zip(on_ost, shares, strict=True)]
    mdt_slack, slack = grant_slack(cluster) if _failed_ost(cluster) is not None else (0, {})
    r = rng(cluster.seed, "quota-qunit")
    rows = []
    for i, t in enumerate(mdts):
        used = mdt_used if i == 0 else 0
        grant = (used + (mdt_slack or r.randint(1_024, 4_096))) if hard_kib and used else 0
        rows.append(TargetQuota(f"{t.name}_UUID", "MDT", used, grant, files if i == 0 else 0))
    for i, t in enumerate(osts):
        grant = ost_used[i] + slack.get(i, r.randint(262_144, 4_194_304)) if hard_kib else 0
        rows.append(TargetQuota(f"{t.name}_UUID", "OST", ost_used[i], grant, 0))
    return rows
