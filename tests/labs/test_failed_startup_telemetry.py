"""A job that failed at start-up never ran a kernel: DCGM's job statistics for its GPUs read a CUDA
context's draw and memory, not a training load, on every node of the job (typed through the shell)."""

import re

import pytest

from emulator.session import Session
from tests.support import run


def _stats(session: Session, node: str) -> tuple[list[float], list[int], list[int]]:
    """Average power (W), max memory used (bytes) and average SM utilisation (%) per GPU of the job."""
    out = run(session, f"ssh {node} dcgmi stats -j 48213 -v")
    power = [float(v) for v in re.findall(r"Power Usage \(Watts\)\s+\| Avg: ([\d.]+)", out)]
    memory = [int(v) for v in re.findall(r"Max GPU Memory Used \(bytes\)\s+\| (\d+)", out)]
    sm = [int(v) for v in re.findall(r"SM Utilization \(%\)\s+\| Avg: (\d+)", out)]
    return power, memory, sm


@pytest.mark.parametrize("seed", [0, 1])   # Fabric Manager stopped; an NVLink that never trained
def test_a_job_that_failed_at_start_up_drew_context_power_on_its_gpus(seed):
    session = Session("nvlink", seed)
    assert "FAILED" in run(session, "sacct -j 48213 -X -o State")
    for node in ("node01", "node03"):
        power, memory, sm = _stats(session, node)
        assert len(power) == 8 and all(60.0 < w < 130.0 for w in power), power
        assert all(m < 2**30 for m in memory) and sm == [0] * 8


def test_the_same_job_running_in_the_healthy_twin_draws_a_training_load():
    power, memory, sm = _stats(Session("nvlink", 0, faults=False), "node01")
    assert all(w > 500.0 for w in power) and all(m > 60 * 2**30 for m in memory) and min(sm) > 50
