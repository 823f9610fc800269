"""The step-time model, its place on the clock, the job's files, and the training faults' effects."""

from __future__ import annotations

import re

import pytest

from emulator.cluster import activity, jobfiles, steps, timeline
from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.checkpoints import checkpoint_files, latest_checkpoint
from emulator.cluster.faults import apply_fault
from emulator.cluster.lifecycle import end_job
from emulator.cluster.model import Cluster
from emulator.cluster.slurmout import slurm_out
from emulator.cluster.trainlog import train_log

LOG = "/lustre/jobs/llm-pretrain/train.log"
OUT = "/lustre/jobs/llm-pretrain/slurm-48213.out"


def cluster_with(fault: str | None = None, nodes: int = 8, **params: object) -> Cluster:
    cluster = build_cluster(ClusterSpec(seed=0, nodes=nodes, training_nodes=nodes // 2))
    if fault:
        apply_fault(cluster, fault, params)
    return cluster


def test_healthy_run_reaches_a_realistic_mfu_and_is_compute_bound() -> None:
    prof = steps.profile(cluster_with())
    assert 0.40 <= prof.mfu <= 0.45
    assert prof.bound == "compute"
    assert prof.late_rank is None
    assert prof.data_wait_s < 0.05


def test_tokens_per_second_is_tokens_per_step_over_step_time() -> None:
    cluster = cluster_with()
    prof = steps.profile(cluster)
    assert cluster.training is not None
    assert prof.tokens_per_s == pytest.approx(cluster.training.tokens_per_step / prof.step_s)


def test_slow_input_makes_data_wait_dominate() -> None:
    prof = steps.profile(cluster_with("slow-input"))
    assert prof.bound == "input"
    assert prof.data_wait_s > 0.4 * prof.step_s


def test_storage_contention_adds_data_wait_and_slows_checkpoint_writes() -> None:
    healthy, loaded = steps.profile(cluster_with()), steps.profile(cluster_with("storage-contention"))
    assert loaded.data_wait_s > 0.5
    assert loaded.checkpoint_write_s > 5 * healthy.checkpoint_write_s


def test_checkpoint_stall_saves_synchronously_and_leaves_the_failed_save_as_dcp_does() -> None:
    """The failed rank's shard is short, no .metadata is written, and the pointer stays on the save before."""
    cluster = cluster_with("checkpoint-stall", why="quota")
    truth = cluster.truth()
    prof = steps.profile(cluster)
    assert prof.checkpoint_stall_s == pytest.approx(prof.checkpoint_write_s)
    step = int(truth["step"])
    files = checkpoint_files(cluster)
    base = f"/lustre/ckpt/llama-8b/step_{step:07d}"
    sizes = {path: size for path, (size, _) in files.items() if path.startswith(base + "/")}
    short = sizes.pop(f"{base}/__{truth['missing_rank']}_0.distcp")
    assert len(sizes) == 31 and short < min(sizes.values())
    assert f"{base}/.metadata" not in files
    assert f"/lustre/ckpt/llama-8b/step_{step - 100:07d}/.metadata" in files
    assert latest_checkpoint(cluster) == step - 100


@pytest.mark.parametrize("kind", ["thermal", "hw-slowdown"])
def test_a_slowed_gpu_makes_its_rank_the_late_one(kind: str) -> None:
    cluster = cluster_with("straggler", kind=kind, rank=13)
    prof = steps.profile(cluster)
    assert prof.late_rank == 13
    waits = {r.rank: r.comm_s for r in prof.ranks}
    assert waits[13] < min(w for r, w in waits.items() if r != 13)


def test_a_rank_stuck_reading_hangs_the_run_and_the_watchdog_names_the_all_reduce() -> None:
    cluster = cluster_with("straggler", kind="io", rank=9, at=-590.0)
    sched = timeline.schedule(cluster)
    stopped = sched.completed_at(0.0)
    cluster.clock.advance(30.0)
    assert sched.completed_at(cluster.clock.elapsed) == stopped
    text = slurm_out(cluster)
    assert "OpType=ALLREDUCE" in text and "Timeout(ms)=600000" in text
    assert "[Rank 9]" not in text and "[Rank 8] Watchdog caught collective operation timeout" in text


def test_numa_misbinding_slows_the_misbound_rank() -> None:
    cluster = cluster_with("numa-misbinding", rank=5)
    assert steps.profile(cluster).late_rank == 5


def test_socket_fallback_makes_the_run_communication_bound() -> None:
    prof = steps.profile(cluster_with("nccl-socket-fallback", variant="ib-disabled"))
    assert prof.transport == "NET/Socket"
    assert prof.bound == "communication"


def test_tp_across_nodes_is_far_slower_than_tp_inside_the_node() -> None:
    cluster = cluster_with("tp-across-nodes")
    assert cluster.training is not None and cluster.training.baseline_step_s is not None
    assert steps.profile(cluster).step_s > 2 * cluster.training.baseline_step_s


def test_twice_the_nodes_finish_only_slightly_sooner() -> None:
    cluster = cluster_with("larger-allocation", nodes=16)
    assert cluster.training is not None and cluster.training.baseline_step_s is not None
    speedup = cluster.training.baseline_step_s / steps.profile(cluster).step_s
    assert 1.05 < speedup < 1.5


@pytest.mark.parametrize("setting", ["activation_checkpointing", "micro_batch_size"])
def test_config_regression_costs_tokens_per_second(setting: str) -> None:
    cluster = cluster_with("config-regression", setting=setting)
    assert cluster.training is not None and cluster.training.baseline_step_s is not None
    assert steps.profile(cluster).step_s > 1.05 * cluster.training.baseline_step_s
    assert "train.log.1" in " ".join(jobfiles.files(cluster))


def test_train_log_grows_with_the_clock_and_carries_simulated_times() -> None:
    cluster = cluster_with()
    before = train_log(cluster)
    cluster.clock.advance(120.0)
    after = train_log(cluster)
    assert after.startswith(before)
    assert len(after.splitlines()) > len(before.splitlines())
    last = after.splitlines()[-1]
    assert re.match(r"2026-03-11 09:0[0-2]:\d\d,\d{3} INFO \[train.py:212\] step \d+ \| loss \d\.\d{4}", last)


def test_train_log_shows_checkpoint_saves_with_durations() -> None:
    text = train_log(cluster_with("checkpoint-stall"))
    assert re.search(r"saved checkpoint step \d+ in \d+\.\d\ds \(\d+\.\d\d GB/s\), training paused", text)


def test_log_files_are_absolute_paths_to_producers() -> None:
    files = jobfiles.files(cluster_with())
    assert LOG in files and OUT in files
    assert all(path.startswith("/") for path in files)
    assert files[LOG]().endswith("\n")


def test_nccl_debug_in_the_job_env_puts_init_lines_in_the_slurm_output() -> None:
    cluster = cluster_with()
    assert cluster.training is not None
    cluster.training.env["NCCL_DEBUG"] = "INFO"
    text = slurm_out(cluster)
    assert "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB" in text
    assert "NCCL version 2.21.5+cuda12.4" in text


def test_phases_cover_the_run_in_order() -> None:
    names = [p.name for p in activity.phases(cluster_with())]
    assert names[:4] == ["allocation", "initialisation", "first batch", "steady state"]
    assert "checkpoint" in names


def test_a_straggler_that_began_mid_run_shows_the_step_time_rise_in_the_log() -> None:
    cluster = cluster_with("straggler", kind="thermal", rank=3)
    assert cluster.training is not None and cluster.training.degraded_s is not None
    times = [float(m.group(1)) for m in re.finditer(r"step_time (\d+\.\d+)s", train_log(cluster))]
    assert times[0] == pytest.approx(cluster.training.baseline_step_s, rel=0.03)
    assert times[-1] == pytest.approx(steps.profile(cluster).step_s, rel=0.03)
    phases = [p for p in activity.phases(cluster) if p.name == "steady state"]
    assert phases[0].detail != phases[-1].detail


def test_schedule_inverts_step_end() -> None:
    sched = timeline.schedule(cluster_with("straggler", kind="thermal", rank=3))
    for step in range(sched.resume_step + 1, sched.resume_step + 1500, 37):
        assert sched.completed_at(sched.step_end(step)) == step
        assert sched.completed_at(sched.step_end(step) - 1e-3) == step - 1


def test_gpu_utilization_drops_while_ranks_wait_for_input() -> None:
    healthy = cluster_with()
    assert activity.gpu_utilization(healthy, "node01", 0) == 100
    assert activity.gpu_utilization(healthy, "node08", 0) is None
    slow = cluster_with("slow-input")
    samples = []
    for _ in range(12):
        slow.clock.advance(1.0)
        samples.append(activity.gpu_utilization(slow, "node01", 0))
    assert min(samples) == 0 and max(samples) == 100  # type: ignore[type-var]


@pytest.mark.parametrize("seed", range(6))
def test_storage_contention_shows_a_slow_save_and_data_wait_in_the_log_for_any_seed(seed: int) -> None:
    cluster = build_cluster(ClusterSpec(seed=seed))
    apply_fault(cluster, "storage-contention")
    text = train_log(cluster)
    assert re.search(r"saved checkpoint step \d+ in (?:[1-9]\d{2,}|[3-9]\d)\.\d+s", text)
    assert re.search(r"data_wait (?:[1-9]\d*\.\d+|0\.[5-9]\d*)s", text)


def test_desync_debug_names_the_rank_that_did_not_join() -> None:
    cluster = cluster_with("straggler", kind="io", rank=6, at=-700.0)
    assert cluster.training is not None
    cluster.training.env["TORCH_NCCL_DESYNC_DEBUG"] = "1"
    assert re.search(r"\[6\] finished collective #\d+, but didn't join collective #\d+", slurm_out(cluster))


def test_a_rank_that_hangs_again_left_the_previous_attempts_watchdog_in_the_slurm_output() -> None:
    cluster = cluster_with("straggler", kind="io", rank=10)
    text = slurm_out(cluster)
    assert text.count("+ for attempt in 1 2") == 2
    assert "+ echo 'attempt 1 of 2 failed'\nattempt 1 of 2 failed\n+ for attempt in 1 2\n" in text
    assert "[Rank 9] Watchdog caught collective operation timeout" in text and "[Rank 10] Watchdog" not in text
    job = cluster.slurm.job(48213)
    assert job is not None and job.start_s is not None
    assert job.start_s <= activity.phases(cluster)[0].start_s
    assert [p.name for p in activity.phases(cluster)][:4] == ["steady state", "hang", "failure", "recovery"]


def test_the_run_is_gone_at_the_earlier_of_the_watchdog_teardown_and_the_end_of_its_job() -> None:
    cluster = cluster_with("straggler", kind="io", rank=5, at=100.0)
    down = timeline.teardown_s(cluster)
    assert down is not None and timeline.failed_at(cluster) == down == 100.0 + 600.06 + timeline.TEARDOWN_S
    job = cluster.slurm.job(48213)
    assert job is not None and job.state == "RUNNING"
    cluster.clock.advance(down + 1.0)
    assert (job.state, job.exit_code, job.reason, job.end_s) == ("FAILED", "1:0", "NonZeroExitCode", down)
    healthy = cluster_with()
    job = healthy.slurm.job(48213)
    assert job is not None and timeline.failed_at(healthy) is None
    end_job(healthy, job, "CANCELLED", 30.0, "0:15", "None")
    assert timeline.failed_at(healthy) == 30.0
    rank = healthy.training.ranks[0] if healthy.training else None
    assert rank is not None and activity.where(healthy, rank, offset=31.0) == "done"


def test_a_host_that_stops_answering_stops_its_ranks_and_its_job_ends_in_node_fail() -> None:
    cluster = cluster_with("host-down", node="node02", cause="kernel-panic", at_s=-600.0)
    run = cluster.training
    job = cluster.slurm.job(48213)
    assert run is not None and job is not None
    assert (run.hang_in, run.hang_s, run.ranks[run.hang_rank or 0].node) == ("node", -600.0, "node02")
    assert (job.state, job.failed_node, job.end_s) == ("NODE_FAIL", "node02", -300.0)
    assert timeline.failed_at(cluster) == -300.0
    text = slurm_out(cluster)
    assert text.endswith("slurmstepd: error: *** STEP 48213.0 ON node04 CANCELLED AT 2026-03-11T08:55:00 DUE TO "
                         "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n")
    cluster.clock.advance(900.0)
    assert slurm_out(cluster) == text
    assert [p.name for p in activity.phases(cluster)][-1] == "hang"
