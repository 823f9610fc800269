"""A training log's step times add up to the time between its lines, as a real logger's do."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from tests.support import on, run

STEP = re.compile(r"^(\S+ \S+) INFO \[train\.py:\d+\] step (\d+) \| .*step_time ([\d.]+)s")
LABS = ["checkpointing", "storage", "late-rank", "input-wait", "multi-node-slowdown", "nccl-transport"]


@pytest.mark.parametrize("lab", LABS)
@pytest.mark.parametrize("seed", [0, 1])
def test_step_times_add_up_to_the_log_clock(lab: str, seed: int) -> None:
    text = run(on(None, lab, seed), "cat /lustre/jobs/llm-pretrain/train.log")
    lines = [(datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S,%f"), int(m[2]), float(m[3]))
             for m in map(STEP.match, text.splitlines()) if m]
    assert len(lines) > 20, f"{lab}: too few step lines to check"
    for (t0, s0, _), (t1, s1, step_time) in zip(lines, lines[1:]):
        gap = (t1 - t0).total_seconds()
        assert abs(gap - (s1 - s0) * step_time) <= 0.002 * (s1 - s0) + 0.002, \
            f"{lab} seed {seed}: steps {s0}->{s1} logged {gap:.3f}s apart, step_time {step_time}s"
