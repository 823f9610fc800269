"""Benchmarks run beside a lab's running job: they need the memory it leaves and share its GPU time."""

from __future__ import annotations

import re

import pytest

from emulator.session import Session
from tests.support import on, run

BESIDE = "srun --jobid 48213 --overlap -N 4 --ntasks-per-node=8 all_reduce_perf -b 1G -e {top} -g 1"


def busbw(out: str) -> float:
    """Out-of-place busbw of the last row."""
    found = re.findall(r"^\s+\d+\s+\d+\s+float\s+sum\s+-1\s+\S+\s+\S+\s+([\d.]+)\s", out, re.M)
    assert found, out
    return float(found[-1])


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_an_8_gib_test_beside_the_job_runs_out_of_memory_and_leaves_a_failed_step(seed: int) -> None:
    s = on(None, "multi-node-slowdown", seed)
    out, status = s.execute(BESIDE.format(top="8G"))
    assert status != 0
    assert re.search(r"^node0[1-4]: Test CUDA failure common\.cu:\d+ 'out of memory'$", out, re.M)
    assert not re.search(r"^\s+8589934592\s", out, re.M)
    steps = run(s, "sacct -j 48213 --format=JobID,JobName,State")
    assert re.search(r"^48213\.1\s+all_reduc\+\s+FAILED", steps, re.M), steps


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_four_node_test_beside_the_job_is_lower_than_its_healthy_twin_as_the_brief_says(seed: int) -> None:
    faulted = busbw(run(on(None, "multi-node-slowdown", seed), BESIDE.format(top="1G")))
    healthy_session = Session("multi-node-slowdown", seed, faults=False)
    healthy = busbw(run(healthy_session, BESIDE.format(top="1G")))
    # Beside a job at 100 % the test gets half of each GPU: a healthy ring reads about half the ~315 GB/s
    # eight NDR rails carry at 1 GiB, and a fault takes its own share off that.
    assert 150 <= healthy <= 165
    assert faulted / healthy <= 0.92


def test_the_same_test_on_idle_nodes_gets_the_whole_fabric() -> None:
    s = Session("multi-node-slowdown", 0, faults=False)
    idle_pair = busbw(run(s, "mpirun -np 16 -H node07:8,node08:8 -x NCCL_ALGO=Ring all_reduce_perf -b 1G -e 1G -g 1"))
    busy_pair = busbw(run(s, "mpirun -np 16 -H node01:8,node02:8 -x NCCL_ALGO=Ring all_reduce_perf -b 1G -e 1G -g 1"))
    assert busy_pair / idle_pair == pytest.approx(0.5, abs=0.03)
