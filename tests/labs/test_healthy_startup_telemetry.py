"""A healthy job's own start-up reads as a CUDA context, not a training load: from its launch until its first
step (the phases ``timeline`` charts: allocation, initialisation, first batch) its GPUs run no kernel, so
DCGM's job statistics over its life hold those samples at near-idle power and idle clocks (typed through
the shell)."""

from __future__ import annotations

import math
import re
from datetime import datetime

import pytest

from emulator.session import Session
from tests.support import run

JOB = "48213"


def _clock(text: str) -> datetime:
    return datetime.strptime(text, "%H:%M:%S")


def _start_up_s(session: Session) -> float:
    """Seconds from the launch to the first step, read from the timeline's phases."""
    table = run(session, "timeline")
    launched = re.search(r"^allocation\s+(\S+)", table, re.M)
    first_step = re.search(r"^first batch\s+\S+\s+(\S+)", table, re.M)
    assert launched and first_step, table
    return (_clock(first_step.group(1)) - _clock(launched.group(1))).total_seconds()


def _expected_idle_pct(session: Session, start_up_s: float) -> list[float]:
    """The share of DCGM's samples (every 30 s, at most 60 over the span, the first at the job's start) that
    fall in the start-up; with 60 steps in the span, the last sample may land just past the clock's second."""
    started = re.search(r"(\d\d:\d\d:\d\d)\s+RUNNING", run(session, f"sacct -j {JOB} -X -o Start,State"))
    now = re.search(r"(\d\d:\d\d:\d\d) UTC", run(session, "date"))
    assert started and now
    span = (_clock(now.group(1)) - _clock(started.group(1))).total_seconds()
    step = max(30.0, span / 60)
    samples = int(span // step) + 1
    return [100.0 * math.ceil(start_up_s / step) / n for n in (samples - 1, samples)]


@pytest.mark.parametrize(("lab", "node"), [("sandbox", "node01"), ("nvlink", "node03")])
def test_a_healthy_jobs_start_up_shows_as_context_power_and_idle_clocks_in_its_stats(lab, node):
    session = Session(lab, 0, faults=False)
    start_up = _start_up_s(session)
    assert 120.0 < start_up < 240.0
    expected = _expected_idle_pct(session, start_up)
    out = run(session, f"ssh {node} dcgmi stats -j {JOB} -v")
    power = re.findall(r"Power Usage \(Watts\)\s+\| Avg: ([\d.]+), Max: ([\d.]+), Min: ([\d.]+)", out)
    clocks = re.findall(r"SM Clock \(MHz\)\s+\| Avg: \d+, Max: (\d+), Min: (\d+)", out)
    idle = [float(v) for v in re.findall(r"- Low Utilization \(%\)\s+\| ([\d.]+)", out)]
    assert len(power) == len(clocks) == len(idle) == 8, out
    for (avg, high, low), (fast, slow) in zip(power, clocks, strict=True):
        assert float(avg) > 500.0 and float(high) > 650.0, out
        assert 60.0 < float(low) < 130.0, out              # a CUDA context's draw, not a training load
        assert int(slow) < 500 < int(fast), out            # the clocks idle until the first step
    assert all(any(abs(v - share) < 0.01 for share in expected) for v in idle), (idle, expected)


def test_the_running_job_reads_a_training_load_now():
    session = Session("sandbox", 0, faults=False)
    out = run(session, "ssh node01 nvidia-smi --query-gpu=utilization.gpu,power.draw --format=csv,noheader,nounits")
    rows = [line.split(", ") for line in out.splitlines()]
    assert len(rows) == 8 and all(int(u) > 90 and float(w) > 500.0 for u, w in rows), out
