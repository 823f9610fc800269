"""Labs: load the lab files, build each lab's cluster, judge a learner's finding.

Placeholder until the lab loader lands: only the healthy sandbox (no lab).
"""

from __future__ import annotations

from .cluster.build import ClusterSpec, build_cluster
from .cluster.model import Cluster
from .errors import LabError


def cluster_for(lab_id: str | None, seed: int) -> Cluster:
    """The cluster a session starts with: the lab's, or the healthy sandbox."""
    if lab_id is None:
        return build_cluster(ClusterSpec(seed=seed))
    raise LabError(f"unknown lab: {lab_id}")


def known_labs() -> list[str]:
    """Ids of every lab file."""
    return []
