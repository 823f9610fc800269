"""input-wait: each seed's cause shows in the tools of rank 0's node, typed as a learner types them."""

from __future__ import annotations

import re

import pytest

from emulator import labs
from tests.support import on, run

SEEDS = (0, 1, 2, 3, 4, 5)


def _cause(seed: int) -> str:
    return labs.build(labs.get("input-wait"), seed).truth()["cause"]


def _workers(top: str) -> list[tuple[str, float]]:
    """(state, %CPU) of each pt_data_worker in a top batch listing."""
    return [(m.group(1), float(m.group(2))) for m in re.finditer(r" ([RSD])\s+([\d.]+)\s+\S+\s+\S+ pt_data_worker", top)]


def test_seeds_zero_and_two_ask_for_different_causes() -> None:
    assert len({_cause(seed) for seed in (0, 1, 2)}) == 3


@pytest.mark.parametrize("seed", SEEDS)
def test_top_on_rank_zeros_node_tells_the_cause(seed: int) -> None:
    cause = _cause(seed)
    session = on(None, "input-wait", seed)
    top = run(session, "ssh node01 top -b -n 1")
    load = float(re.search(r"load average: ([\d.]+),", top).group(1))
    idle = float(re.search(r"([\d.]+) id,", top).group(1))
    iowait = float(re.search(r"([\d.]+) wa,", top).group(1))
    workers = _workers(top)
    others = re.findall(r"^\s*\d+ (?!alice)(\w+)\s+20\s+0\s.* R\s+([\d.]+)\s+\S+\s+\S+ python3$", top, re.M)
    cpus = int(run(session, "ssh node01 nproc"))
    if cause == "slow-input":
        assert all(state == "R" and pct > 90 for state, pct in workers) and idle > 50 and not others
    elif cause == "cpu-contention":
        assert all(state == "R" and pct < 30 for state, pct in workers)
        assert load > 5 * cpus and idle < 2 and iowait < 1
        assert others and all(float(pct) > 100 for _, pct in others)
        user = others[0][0]
        # Outside Slurm: no job of that user on the node, init is the parent, and sshd logged the session.
        assert user not in run(session, "squeue -w node01")
        ps = run(session, f"ssh node01 ps -u {user} -o ppid=,nlwp=")
        assert all(line.split()[0] == "1" and int(line.split()[1]) >= cpus // 2 for line in ps.splitlines())
        assert f"Accepted publickey for {user} from" in run(session, "ssh node01 grep sshd /var/log/auth.log")
        # vmstat's r (runnable threads) and /proc/loadavg's running count agree with the load.
        runnable = int(run(session, "ssh node01 vmstat 1 1").splitlines()[-1].split()[0])
        assert runnable > 5 * cpus and abs(runnable - load) < 0.1 * load
    else:
        assert any(state == "D" for state, _ in workers) and iowait > 5 and not others


@pytest.mark.parametrize("seed", SEEDS)
def test_the_crowded_cpus_start_before_the_first_slow_window_of_the_log(seed: int) -> None:
    if _cause(seed) != "cpu-contention":
        pytest.skip("the CPUs are crowded only in the cpu-contention seeds")
    session = on(None, "input-wait", seed)
    user = re.search(r"Accepted publickey for (\w+)", run(session, "ssh node01 grep sshd /var/log/auth.log")).group(1)
    started = run(session, f"ssh node01 ps -u {user} -o lstart= | sort | head -n 1").split()[3]
    first_slow = run(session, "grep -m1 'data_wait [1-9]' /lustre/jobs/llm-pretrain/train.log").split()[1][:8]
    window_start = run(session, "grep -B1 -m1 'data_wait [1-9]' /lustre/jobs/llm-pretrain/train.log").split()[1][:8]
    assert started < window_start < first_slow


def test_the_healthy_twin_has_no_stray_processes_and_an_idle_host() -> None:
    for seed in (0, 1, 2):
        session = on(None, "input-wait", seed)
        session_healthy = type(session)("input-wait", seed, faults=False)
        top = run(session_healthy, "ssh node01 top -b -n 1")
        assert not re.search(r"^\s*\d+ (?!alice|root)\w+\s+20\s+0\s.* python3$", top, re.M)
        assert float(re.search(r"load average: ([\d.]+),", top).group(1)) < 224
