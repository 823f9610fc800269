"""py-spy dump and timeline through the shell, on the healthy run and under training faults."""

from __future__ import annotations

import pytest

from emulator.cluster import activity, steps
from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import golden


def session(fault: str | None = None, **params: object) -> Session:
    s = Session()
    if fault:
        apply_fault(s.cluster, fault, params)
    return s


def rank(s: Session, n: int):  # noqa: ANN201 - a Rank
    assert s.cluster.training is not None
    return s.cluster.training.ranks[n]


def advance_until(s: Session, n: int, state: str) -> None:
    """Move the clock (in 0.1 s steps, at most one step period) until rank ``n`` is in ``state``."""
    r = rank(s, n)
    for _ in range(2000):
        if activity.where(s.cluster, r) == state:
            return
        s.cluster.clock.advance(0.1)
    raise AssertionError(f"rank {n} never in {state}")


def test_py_spy_dump_prints_the_real_header_and_main_thread() -> None:
    s = session()
    r = rank(s, 3)
    out, status = s.execute(f"ssh {r.node} py-spy dump --pid {r.pid}")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"Process {r.pid}: /usr/bin/python3 -u train.py --config /home/alice/jobs/configs/llama-8b.yaml"
    assert lines[1] == "Python v3.10.12 (/usr/bin/python3.10)"
    assert lines[3].startswith(f"Thread {r.pid} (") and lines[3].endswith('): "MainThread"')
    assert '"Thread-2 (_pin_memory_loop)"' in out


def test_py_spy_needs_the_pid_on_the_current_host() -> None:
    s = session()
    out, status = s.execute(f"py-spy dump --pid {rank(s, 0).pid}")
    assert status == 1
    assert out == ("Error: Failed to open process - check if it is running.\n"
                   "Reason: No such file or directory (os error 2)\n")


def test_waiting_ranks_sit_in_all_reduce_while_the_stuck_rank_waits_for_data() -> None:
    s = session("straggler", kind="io", rank=10, at=-30.0)
    waiting, stuck = rank(s, 2), rank(s, 10)
    out, _ = s.execute(f"ssh {waiting.node} py-spy dump --pid {waiting.pid}")
    assert "    all_reduce (torch/distributed/distributed_c10d.py:2288)" in out
    out, _ = s.execute(f"ssh {stuck.node} py-spy dump --pid {stuck.pid}")
    assert f"Thread {stuck.pid} (idle)" in out
    assert "    _try_get_data (torch/utils/data/dataloader.py:1133)" in out
    worker = steps.worker_pids(s.cluster.training, stuck)[0]  # type: ignore[arg-type]
    out, _ = s.execute(f"ssh {stuck.node} py-spy dump --pid {worker}")
    assert "    _read_chunk (data.py:57)" in out


def test_slow_input_shows_the_main_thread_in_the_loader_and_workers_busy() -> None:
    s = session("slow-input")
    advance_until(s, 0, "data")
    r = rank(s, 0)
    out, _ = s.execute(f"ssh {r.node} py-spy dump --pid {r.pid}")
    assert "    get (queue.py:180)\n    _try_get_data (torch/utils/data/dataloader.py:1133)" in out
    assert '"Thread-2 (_pin_memory_loop)"' in out   # pin_memory: true, as the job's config says
    worker = steps.worker_pids(s.cluster.training, r)[0]  # type: ignore[arg-type]
    out, _ = s.execute(f"ssh {r.node} py-spy dump --pid {worker}")
    assert f"Thread {worker} (active)" in out and "pack_sequences (data.py:88)" in out


def test_without_pin_memory_the_loader_waits_on_the_workers_queue_and_no_pin_thread_runs() -> None:
    s = session("slow-input")
    assert s.cluster.training is not None
    s.cluster.training.pin_memory = False
    advance_until(s, 0, "data")
    r = rank(s, 0)
    assert "  pin_memory: false" in s.execute("cat /home/alice/jobs/configs/llama-8b.yaml")[0]
    advance_until(s, 0, "data")
    out, _ = s.execute(f"ssh {r.node} py-spy dump --pid {r.pid}")
    lines = out.splitlines()
    assert lines[3] == f'Thread {r.pid} (idle): "MainThread"'
    assert lines[4:10] == ["    select (selectors.py:416)", "    wait (multiprocessing/connection.py:931)",
                           "    _poll (multiprocessing/connection.py:424)", "    poll (multiprocessing/connection.py:257)",
                           "    get (multiprocessing/queues.py:113)",
                           "    _try_get_data (torch/utils/data/dataloader.py:1133)"]
    assert "queue.py:180" not in out and "_pin_memory_loop" not in out   # pinned: test_slow_input_shows_...


def test_a_synchronous_save_shows_torch_serialization() -> None:
    s = session("checkpoint-stall")
    advance_until(s, 4, "checkpoint")
    r = rank(s, 4)
    out, _ = s.execute(f"ssh {r.node} py-spy dump --pid {r.pid}")
    assert "    _save (torch/serialization.py:864)" in out


def test_timeline_draws_the_phases_of_the_run() -> None:
    out, status = session().execute("timeline")
    assert status == 0
    for name in ("allocation", "initialisation", "first batch", "steady state", "checkpoint"):
        assert f"\n{name}" in out
    assert "MFU" in out and "(compute-bound)" in out


def _slowest(out: str) -> list[str]:
    """The row of ``timeline --ranks`` with the longest compute."""
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    return max(rows, key=lambda row: float(row[4]))


def test_timeline_ranks_shows_the_late_rank_by_its_numbers_alone() -> None:
    s = session("straggler", kind="thermal", rank=21)
    out, _ = s.execute("timeline --ranks")
    assert "late" not in out
    assert _slowest(out)[0] == "21"


def test_timeline_shows_a_hang() -> None:
    s = session("straggler", kind="io", rank=7, at=-60.0)
    out, _ = s.execute("timeline")
    assert "\nhang" in out and "rank 7 stopped" in out
    out, _ = s.execute("timeline --ranks")
    assert "stuck since" in out and "waiting in all_reduce since" in out


@pytest.mark.parametrize(("line", "message"), [
    ("timeline --job 99", "timeline: job 99 not found"),
    ("timeline --job abc", "timeline: invalid job id: abc"),
])
def test_timeline_rejects_bad_jobs(line: str, message: str) -> None:
    out, status = session().execute(line)
    assert status == 1 and out.strip() == message


def test_timeline_compares_with_the_previous_job_or_the_reference_step() -> None:
    out, _ = session("config-regression", setting="activation_checkpointing").execute("timeline")
    assert "previous job (4 nodes, 32 ranks): step" in out
    out, _ = session("slow-input").execute("timeline")
    assert "reference step 3.681s" in out


@pytest.mark.parametrize(("name", "fault", "params", "line"), [
    ("timeline_sandbox.txt", None, {}, "timeline"),
    ("timeline_ranks_thermal_straggler.txt", "straggler", {"kind": "thermal", "rank": 13}, "timeline --ranks"),
    ("timeline_checkpoint_stall.txt", "checkpoint-stall", {}, "timeline"),
])
def test_timeline_matches_golden(name: str, fault: str | None, params: dict[str, object], line: str) -> None:
    out, status = session(fault, **params).execute(line)
    assert status == 0
    golden(name, out)


def test_py_spy_of_a_waiting_rank_matches_golden() -> None:
    s = session("straggler", kind="io", rank=10, at=-30.0)
    r = rank(s, 2)
    out, _ = s.execute(f"ssh {r.node} py-spy dump --pid {r.pid}")
    golden("py-spy_dump_all_reduce.txt", out)


def test_the_late_rank_and_its_slowed_gpu_agree_across_tools() -> None:
    s = session("straggler", kind="thermal", rank=13)
    r = rank(s, 13)
    out, _ = s.execute("timeline --ranks")
    assert _slowest(out)[:3] == ["13", r.node, str(r.gpu)]
    out, _ = s.execute(f"ssh {r.node} nvidia-smi -q -i {r.gpu} -d PERFORMANCE")
    assert "Thermal Slowdown" in out and ": Active" in out


def test_py_spy_dumps_the_torchrun_agent_that_ps_lists() -> None:
    s = session()
    out, _ = s.execute("ssh node02 ps aux")
    agent = next(line.split()[1] for line in out.splitlines() if "torchrun" in line)
    out, status = s.execute(f"ssh node02 py-spy dump --pid {agent}")
    assert status == 0
    assert "/usr/local/bin/torchrun --nnodes=4" in out.splitlines()[0]
    assert "_invoke_run (torch/distributed/elastic/agent/server/api.py:835)" in out


@pytest.mark.parametrize(("lab", "bound"), [("input-wait", "input"), ("workloads-cost", "communication"),
                                            ("late-rank", "compute"), (None, "compute")])
def test_timeline_names_the_larger_stall_of_the_slowest_rank_once_it_takes_a_real_share(lab, bound) -> None:
    from tests.support import on, run
    line = next(x for x in run(on(None, lab, 0), "timeline").splitlines() if x.startswith("steady step"))
    step, data, compute, comm = (float(w.rstrip("s")) for w in line.split() if w[0].isdigit())
    assert abs(data + compute + comm - step) < 0.002
    assert line.endswith(f"on the slowest rank ({bound}-bound)")
