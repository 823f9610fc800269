"""The previous job a lab compares with is in sacct, and its times agree with its log and the current job."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from tests.support import on, run

LOG1 = "/lustre/jobs/llm-pretrain/train.log.1"


def _stamp(line: str) -> datetime:
    return datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S")


@pytest.mark.parametrize("lab", ["tokens-batches-steps", "workloads-cost", "parallelism-placement"])
@pytest.mark.parametrize("seed", [0, 1])
def test_previous_job_has_an_accounting_record_matching_its_log(lab: str, seed: int) -> None:
    s = on(None, lab, seed)
    rows = run(s, "sacct -X -n -P -j 48184,48213 --format=JobID,State,Start,End").splitlines()
    prev, cur = (row.split("|") for row in rows)
    assert prev[:2] == ["48184", "CANCELLED by 1001"]
    assert cur[:2] == ["48213", "RUNNING"]
    start, end = (datetime.fromisoformat(t) for t in prev[2:4])
    log = run(s, f"cat {LOG1}").splitlines()
    assert "job 48184 on" in log[0]
    assert start <= _stamp(log[0]) and _stamp(log[-1]) <= end
    assert log[-1].endswith("SIGTERM received: stopping")
    assert end < datetime.fromisoformat(cur[2])
    assert "requeue" not in "\n".join(log)


@pytest.mark.parametrize("lab", ["tokens-batches-steps", "parallelism-placement"])
def test_previous_job_ran_faster(lab: str) -> None:
    s = on(None, lab, 0)
    rate = re.compile(r"tokens/s ([\d,]+)")
    before = [int(m.replace(",", "")) for m in rate.findall(run(s, f"cat {LOG1}"))]
    now = [int(m.replace(",", "")) for m in rate.findall(run(s, "cat /lustre/jobs/llm-pretrain/train.log"))]
    assert min(before) > max(now)


def test_previous_job_of_the_tensor_parallel_run_used_data_parallelism_alone() -> None:
    s = on(None, "parallelism-placement", 1)
    assert "(tp=1 pp=1 dp=32)" in run(s, f"head -n 1 {LOG1}")
    assert "(tp=1 " not in run(s, "head -n 1 /lustre/jobs/llm-pretrain/train.log")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_edited_job_script_keeps_the_previous_copy_whose_job_ran_faster(seed: int) -> None:
    s = on(None, "nccl-transport", seed)
    before = run(s, "grep NCCL_IB /home/alice/jobs/pretrain.sbatch.orig")
    after = run(s, "grep NCCL_IB /home/alice/jobs/pretrain.sbatch")
    assert before == "export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7\n"
    assert after != before
    assert run(s, "sacct -X -n -P -j 48184 --format=State") == "CANCELLED by 1001\n"
    rate = re.compile(r"tokens/s ([\d,]+)")
    old = [int(m.replace(",", "")) for m in rate.findall(run(s, f"cat {LOG1}"))]
    now = [int(m.replace(",", "")) for m in rate.findall(run(s, "cat /lustre/jobs/llm-pretrain/train.log"))]
    assert min(old) > max(now)
