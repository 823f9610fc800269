"""Lustre quotas: each user's, group's and project's usage and limits on the parallel filesystem.

The training run's tree (its checkpoints and job directory) carries one
project id, whose quota the team's data share; the project's usage is its
checkpoint shards (:func:`emulator.cluster.checkpoints.checkpoint_files`)
plus the rest of the team's data. Users and groups have no limits. When a
checkpoint write failed for ``quota``, the master has granted the project's
whole hard limit and the target under the failed shard used its grant up
(:mod:`emulator.cluster.quotagrant`): its write got EDQUOT.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.accounts import UIDS
from emulator.cluster.checkpoints import checkpoint_files
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.cluster.quotagrant import grant_slack

#: Project id of the training run's directories (``lfs project -d`` shows it).
PROJECT_ID = 2001
#: The project's hard block limit, TiB (the rest of the team's data fills 60-80 % of it).
PROJECT_LIMIT_TIB = 64
_KIB_PER_TIB = 1024 ** 3


@dataclass(frozen=True)
class Quota:
    """One quota id's usage and limits (KiB, files); a limit of 0 is no limit."""

    kind: str          # "usr", "grp" or "prj"
    name: str          # the user or group name, or the project id
    ident: int
    used_kib: int
    hard_kib: int
    files: int

    @property
    def over(self) -> bool:
        """Whether usage has reached the hard block limit (``lfs quota`` marks it with ``*``)."""
        return bool(self.hard_kib) and self.used_kib >= self.hard_kib


def project_dirs(cluster: Cluster) -> list[str]:
    """The directories that carry the project id: the run's checkpoint tree and job directory."""
    run = cluster.training
    return [] if run is None else [run.checkpoint_dir, f"/lustre/jobs/{run.name}"]


def _team_data(cluster: Cluster) -> tuple[int, int]:
    """(KiB, files) of the project's data other than the checkpoints now on disk."""
    saved = checkpoint_files(cluster)
    shards_kib = sum(-(-size // 4096) * 4 for size, _ in saved.values())
    r = rng(cluster.seed, "lustre-quota")
    limit = PROJECT_LIMIT_TIB * _KIB_PER_TIB
    run = cluster.training
    if run is not None and run.checkpoint_why == "quota":
        # The master granted the whole limit; the targets' unused grants keep the total just under it.
        mdt_slack, slack = grant_slack(cluster)
        other = limit - shards_kib - mdt_slack - sum(slack.values())
    else:
        other = int(limit * r.uniform(0.6, 0.8)) - shards_kib
    return max(0, other), r.randint(180_000, 420_000) + len(saved)


def quota(cluster: Cluster, kind: str, name: str) -> Quota | None:
    """The quota of user, group or project ``name`` (None when no such id)."""
    data_kib, data_files = _team_data(cluster)
    shards = checkpoint_files(cluster)
    project_kib = data_kib + sum(-(-size // 4096) * 4 for size, _ in shards.values())
    if kind == "prj":
        if not name.isdecimal():
            return None
        ident = int(name)
        if ident != PROJECT_ID or cluster.training is None:
            return Quota("prj", name, ident, 0, 0, 0)
        return Quota("prj", name, ident, project_kib, PROJECT_LIMIT_TIB * _KIB_PER_TIB, data_files)
    ident = UIDS.get(name, int(name) if name.isdecimal() else -1)
    if ident < 0:
        return None
    owner = next((user for user, uid in UIDS.items() if uid == ident), name)
    if owner != "alice" or cluster.training is None:
        used = rng(cluster.seed, "lustre-quota", kind, owner).randint(0, 3_000_000) if ident >= 1000 else 0
        return Quota(kind, owner, ident, used, 0, rng(cluster.seed, "lustre-files", kind, owner).randint(0, 9_000))
    home = rng(cluster.seed, "lustre-quota", "alice-other").randint(2_000_000, 40_000_000)
    return Quota(kind, owner, ident, project_kib + home, 0, data_files + 1_200)
