"""Benchmarks run beside a lab's running job: they need the memory it leaves and share its GPU time."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.telemetry import sample
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


LONG_BESIDE = ("srun --jobid 48213 --overlap -w node01 -N 1 --ntasks-per-node=8 "
               "all_reduce_perf -b 1G -e 1G -g 1 -n 3000")
STEP_LINE = re.compile(r"^\S+ (\d\d):(\d\d):(\d\d),(\d{3}) INFO \[train\.py:212\] step (\d+) .*step_time ([\d.]+)s", re.M)


def _steps(log: str) -> list[tuple[float, int, float]]:
    """(seconds of the day, step, step_time) of each step line."""
    return [(int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000, int(step), float(took))
            for h, m, s, ms, step, took in STEP_LINE.findall(log)]


def _clock(text: str) -> float:
    h, m, s = (int(part) for part in text.split(":"))
    return h * 3600 + m * 60 + s


@pytest.mark.parametrize("seed", [0, 2])
def test_a_benchmark_beside_the_job_slows_its_steps_while_it_runs_and_they_recover_after(seed: int) -> None:
    s = on(None, "multi-node-slowdown", seed)
    run(s, LONG_BESIDE)
    run(s, "sleep 120")
    timeline = run(s, "timeline")
    shared = re.search(r"^shared\s+(\S+)\s+(\S+)\s+\S+\s+([\d.]+) s/step beside all_reduce_perf on 8 GPUs$",
                       timeline, re.M)
    assert shared, timeline
    assert "s shared GPUs" in timeline
    steady = [float(rate) for rate in re.findall(r"^steady state .* ([\d.]+) s/step$", timeline, re.M)]
    # On the GPUs it shares the job gets half the time: its compute-bound step takes about twice as long.
    assert float(shared.group(3)) / steady[-1] == pytest.approx(2.0, abs=0.1)
    begin, end = _clock(shared.group(1)), _clock(shared.group(2))
    assert end - begin > 40
    # sacct's record of the step is the same stretch, on the node and GPUs it shared.
    step = run(s, "sacct -j 48213.1 -n -P --format=JobID,NodeList,NTasks,Start,End")
    assert re.search(rf"^48213\.1\|node01\|8\|\S+T{shared.group(1)}\|\S+T{shared.group(2)}$", step, re.M), step
    lines = _steps(run(s, "tail -n 12 /lustre/jobs/llm-pretrain/train.log"))
    # Each line reports the steps since the line before it: sort them by where that stretch fell.
    spans = [(prev, at, took) for (prev, _, _), (at, _, took) in zip(lines, lines[1:], strict=False)]
    before = [took for _, at, took in spans if at < begin]
    within = [took for prev, at, took in spans if min(at, end) - max(prev, begin) > 0.5 * (at - prev)]
    after = [took for prev, _, took in spans if prev > end]
    assert before and within and after, lines
    assert min(within) > 1.3 * max(before)
    assert max(after) < 1.05 * min(before)


def test_a_benchmark_beside_the_job_is_the_only_difference_from_its_twin_that_waited() -> None:
    """The same lines give the same log; a session that only waited as long has no slow steps."""
    logs = []
    for _ in range(2):
        s = on(None, "multi-node-slowdown", 1)
        run(s, LONG_BESIDE)
        logs.append(run(s, "tail -n 6 /lustre/jobs/llm-pretrain/train.log"))
    assert logs[0] == logs[1]
    s = on(None, "multi-node-slowdown", 1)
    waited = run(s, "sleep 55; tail -n 6 /lustre/jobs/llm-pretrain/train.log")
    assert max(took for _, _, took in _steps(waited)) < 1.05 * min(took for _, _, took in _steps(waited))
    assert max(took for _, _, took in _steps(logs[0])) > 1.3 * min(took for _, _, took in _steps(logs[0]))


def test_the_gpus_it_shares_read_busy_while_it_runs_and_the_job_steps_as_before_after() -> None:
    s = on(None, "multi-node-slowdown", 0)
    before = run(s, "timeline | grep '^steady state' | tail -n 1")
    run(s, LONG_BESIDE)
    cluster = s.cluster
    assert cluster.training is not None
    span = cluster.training.shared[-1]
    node = cluster.node("node01")
    assert node is not None
    # Samples taken during the test: whenever the rank's kernels do not run, the test's do.
    instants = [span.start_s + (span.end_s - span.start_s) * k / 10 for k in range(1, 10)]
    assert min(sample(cluster, node, gpu, at).util_pct for gpu in node.gpus for at in instants) >= 99
    after = run(s, "timeline | grep '^steady state' | tail -n 1")
    assert before.split()[-2:] == after.split()[-2:]


def test_a_benchmark_on_idle_nodes_leaves_the_job_as_it_was() -> None:
    idle = "mpirun -np 16 -H node07:8,node08:8 all_reduce_perf -b 1G -e 1G -g 1 -n 3000"
    tail = "tail -n 4 /lustre/jobs/llm-pretrain/train.log"
    beside_idle = on(None, "multi-node-slowdown", 0)
    run(beside_idle, idle)
    logs = run(beside_idle, tail)
    assert "shared" not in run(beside_idle, "timeline")
    beside_job = on(None, "multi-node-slowdown", 0)
    run(beside_job, idle.replace("node07:8,node08:8", "node01:8,node02:8"))
    assert run(beside_job, tail) != logs
    assert max(took for _, _, took in _steps(logs)) < 1.05 * min(took for _, _, took in _steps(logs))
