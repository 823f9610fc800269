"""A lab's cluster for a seed: its spec, the faults with the parameters the seed picks, applied.

A ``vary`` entry (or a list of fault names) is walked in a fixed seeded
order, so any N consecutive seeds cover its N choices; ``faults=False``
gives the lab's healthy twin, which the replay tests compare against.
"""

from __future__ import annotations

from typing import Any

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault, catalog
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.errors import LabError
from emulator.labs.decoys import apply_decoys
from emulator.labs.loader import get
from emulator.labs.schema import Lab
from emulator.labs.shift import SHIFT, build_shift


def spec_for(lab: Lab, seed: int) -> ClusterSpec:
    """The lab's ``[cluster]`` table as the builder's spec for ``seed``."""
    return ClusterSpec(seed=seed, **lab.cluster)


def fault_params(lab: Lab, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Each fault's parameters for this seed: the fixed ones plus one pick per ``vary`` entry."""
    out = []
    for i, fault in enumerate(lab.faults):
        name = _pick(fault.names, seed, lab.id, i, "name")
        params = dict(fault.params)
        for key, options in fault.vary.items():
            params[key] = _pick(options, seed, lab.id, i, key)
        if len(fault.names) > 1:
            params = {k: v for k, v in params.items() if k in catalog()[name].params}
        out.append((name, params))
    return out


def _pick(options: list[Any], seed: int, *names: object) -> Any:
    """One choice per seed: a fixed shuffle of the options walked in seed order, so any
    ``len(options)`` consecutive seeds cover every choice."""
    order = list(range(len(options)))
    rng(0, "lab-order", *names).shuffle(order)
    return options[order[seed % len(options)]]


def build(lab: Lab, seed: int, faults: bool = True) -> Cluster:
    """The lab's cluster for ``seed`` with its faults and decoys; ``faults=False`` gives its healthy twin."""
    cluster = build_cluster(spec_for(lab, seed))
    if faults:
        for name, params in fault_params(lab, seed):
            try:
                apply_fault(cluster, name, params)
            except ValueError as exc:
                raise LabError(f"{lab.source}: faults: {exc}") from None
        apply_decoys(cluster, lab.decoys, lab.id)
    return cluster


def lures(lab: Lab, seed: int) -> list[dict[str, str]]:
    """The finding each of the lab's decoys lures a lazy sweep into, for ``seed``."""
    cluster = build_cluster(spec_for(lab, seed))
    for name, params in fault_params(lab, seed):
        apply_fault(cluster, name, params)
    return apply_decoys(cluster, lab.decoys, lab.id)


def cluster_for(lab_id: str | None, seed: int, faults: bool = True) -> Cluster:
    """The cluster a session starts with: the lab's, an on-call shift's (:mod:`emulator.labs.shift`), or the
    healthy sandbox; ``faults=False``: its healthy twin."""
    if lab_id == SHIFT:
        return build_shift(seed).cluster if faults else build_cluster(ClusterSpec(seed=seed))
    return build(get(lab_id), seed, faults)
