"""The fault catalog: named changes to the cluster model that labs inject.

A fault is data plus one function. Each domain module (``gpu``, ``fabric``,
``training``, ``neighbours``, ``hosts``) lists its faults in ``FAULTS``; this module joins
them into one catalog and applies them. A fault's function changes the model's
state (never any tool's output directly), choosing its target from the seeded
random source when the lab does not name one, and returns the ground truth a
lab's check compares a learner's finding against.
"""

from __future__ import annotations

from emulator.cluster.faults import fabric, gpu, hosts, neighbours, training
from emulator.cluster.faults.base import Fault
from emulator.cluster.ids import rng
from emulator.cluster.lifecycle import watch_training
from emulator.cluster.model import Cluster, FaultRecord
from emulator.cluster.previousjob import record_previous_job

__all__ = ["Fault", "apply_fault", "catalog"]

def catalog() -> dict[str, Fault]:
    """Every fault by name, from the domain modules' explicit lists."""
    table: dict[str, Fault] = {}
    for module in (gpu, fabric, training, neighbours, hosts):
        for fault in module.FAULTS:
            if fault.name in table:
                raise RuntimeError(f"fault {fault.name!r} defined twice")
            table[fault.name] = fault
    return table


def apply_fault(cluster: Cluster, name: str, params: dict[str, object] | None = None) -> FaultRecord:
    """Apply one fault by name; unknown names and parameters raise ValueError."""
    faults = catalog()
    if name not in faults:
        raise ValueError(f"unknown fault: {name}")
    fault = faults[name]
    given = dict(params or {})
    unknown = sorted(set(given) - set(fault.params))
    if unknown:
        raise ValueError(f"fault {name}: unknown parameter(s): {', '.join(unknown)}")
    merged = {**fault.params, **given}
    truth = fault.apply(cluster, rng(cluster.seed, "fault", name, len(cluster.faults)), merged)
    record = FaultRecord(name=name, params=merged, truth=truth)
    cluster.faults.append(record)
    record_previous_job(cluster)
    watch_training(cluster)
    return record
