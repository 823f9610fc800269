"""What a fault is: a name, a summary, the parameters it takes, and one function that changes the model."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.cluster.model import Cluster

#: apply(cluster, rng, params) -> truth, e.g. {"node": "node07", "port": "mlx5_3", "cause": "link-rate"}
ApplyFn = Callable[[Cluster, random.Random, dict[str, object]], dict[str, str]]


@dataclass(frozen=True)
class Fault:
    name: str
    summary: str
    apply: ApplyFn
    #: Parameters the function understands, with their defaults (a lab may override).
    params: dict[str, object] = field(default_factory=dict)
