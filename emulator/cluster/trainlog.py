"""Rank 0's training log (``train.log``), and the previous job's (``train.log.1``).

A header (job, config, process group, the checkpoint the run resumed from),
then one line every ``log_interval`` steps with the loss, step time, input
wait, throughput and MFU of :mod:`emulator.cluster.steps` at the instants of
:mod:`emulator.cluster.timeline`, the checkpoint saves and the old saves the
retention removed after each one that finished. Lines stop when
the job's output stopped being written.
"""

from __future__ import annotations

import math
from functools import lru_cache

from emulator.cluster.checkpoints import removed_checkpoints
from emulator.cluster.ids import rng
from emulator.cluster.jobscript import config_path
from emulator.cluster.model import Cluster
from emulator.cluster.savefailure import checkpoint_exception
from emulator.cluster.scheduler import compress_hostlist
from emulator.cluster.steps import StepProfile, previous_run, profile, profile_of
from emulator.cluster.timeline import Schedule, schedule, teardown_s, written_until
from emulator.cluster.training import TrainingRun

#: Step lines kept in the log file; older ones were rotated away.
MAX_STEP_LINES = 5000


def _ts(cluster: Cluster, offset: float) -> str:
    """``2026-03-11 08:59:58,123`` (Python logging's default asctime)."""
    dt = cluster.clock.at(offset)
    return dt.strftime("%Y-%m-%d %H:%M:%S") + f",{dt.microsecond // 1000:03d}"


# A log is rendered whole on every read and a seeded Random costs a SHA-512: remember each step's draws.
@lru_cache(maxsize=8192)
def _loss(seed: int, step: int) -> float:
    noise = rng(seed, "loss", step).gauss(0.0, 0.012)
    return 1.62 + 6.0 * (step + 500) ** -0.25 + noise


@lru_cache(maxsize=8192)
def _jitter(seed: int, step: int) -> float:
    """A step's relative deviation from its modelled time, as the log reports it."""
    return rng(seed, "steplog", step).gauss(0.0, 0.004)


def _lr(step: int, total: int = 100_000) -> float:
    return 3.0e-4 * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total)))


def _header(cluster: Cluster, run: TrainingRun, sched: Schedule, prof: StepProfile,
            job_id: int | None = None) -> list[tuple[float, str]]:
    hosts = compress_hostlist(run.nodes)
    load_s = max(5.0, run.init_s * 0.45)
    layout: list[tuple[float, str]] = []
    if run.tp > 1:
        group, _ = run.groups_of_rank0()
        where = compress_hostlist(sorted({r.node for r in group}))
        layout = [(sched.init_s + 24.1, f"INFO [parallel.py:88] order {run.parallel_order}: tensor-parallel group 0 = "
                                        f"ranks {[r.rank for r in group]} on {where}")]
    return layout + [
        (sched.init_s + 1.2, f"INFO [train.py:64] job {job_id or run.job_id} on {hosts}: {run.model_name} ({run.params_b:g}B "
                             f"params), world size {run.world_size} (tp={run.tp} pp={run.pp} dp={run.dp}), global batch "
                             f"{run.global_batch} x {run.seq_len} = {run.tokens_per_step:,} tokens/step"),
        (sched.init_s + 1.3, f"INFO [train.py:71] config {config_path(run)}: micro_batch={run.micro_batch} "
                             f"grad_accum={run.grad_accum} precision={run.precision} "
                             f"activation_checkpointing={str(run.activation_recompute).lower()} "
                             f"num_workers={run.loader_workers} checkpoint_every={run.checkpoint_every} keep_last={run.keep_last} "
                             f"async_checkpoint={str(run.async_checkpoint).lower()}"),
        (sched.init_s + 24.0, f"INFO [dist.py:40] process group ready: backend nccl, {run.world_size} ranks"),
        (sched.first_batch_s - 0.5, f"INFO [checkpoint.py:151] loaded checkpoint {run.checkpoint_dir}/"
                                    f"step_{sched.resume_step:07d} in {load_s:.1f}s"),
        (sched.first_batch_s, f"INFO [train.py:118] resuming at step {sched.resume_step}, waiting for the first batch"),
        (sched.steady_s, f"INFO [train.py:131] first batch ready after {run.first_batch_s:.1f}s"),
    ]


def _step_lines(cluster: Cluster, run: TrainingRun, sched: Schedule, prof: StepProfile, now: float,
                limit: int = MAX_STEP_LINES) -> list[tuple[float, str]]:
    lines: list[tuple[float, str]] = []
    last = sched.completed_at(now)
    every = max(1, run.log_interval)
    first = (sched.resume_step // every + 1) * every
    start = max(first, (last // every - limit + 1) * every)

    def logged_at(step: int) -> float:
        """When the line of ``step`` was written: just before the step's end, by its jitter (a share of its
        interval), so that the step times the lines report add up to the time between them, and a save that
        starts at the step's end is logged after it."""
        if step <= sched.resume_step:
            return sched.steady_s
        end = sched.step_end(step)
        begin = sched.step_end(step - every) if step - every > sched.resume_step else sched.steady_s
        return end - abs(_jitter(cluster.seed, step)) * (end - begin)

    for step in range(start, last + 1, every):
        end = logged_at(step)
        jit = _jitter(cluster.seed, step)
        step_time = (end - logged_at(step - every)) / min(every, step - sched.resume_step)
        early = sched.split is not None and step <= sched.split[0]
        data = (run.baseline_data_s if early else prof.data_wait_s) * (1.0 + 3 * abs(jit))
        tps = run.tokens_per_step / step_time
        tflops = 6.0 * run.params_b * 1e9 * tps / max(1, run.world_size) / 1e12
        lines.append((end, f"INFO [train.py:212] step {step} | loss {_loss(cluster.seed, step):.4f} | lr "
                           f"{_lr(step):.3e} | step_time {step_time:.3f}s | data_wait {data:.3f}s | tokens/s "
                           f"{tps:,.0f} | tflops/gpu {tflops:.1f} | mfu {100 * tflops / 989.0:.1f}%"))
    for step, begin, finish in sched.saves_between(sched.steady_s, now):
        size = prof.checkpoint_bytes / 1e9
        write_s = prof.checkpoint_write_s
        if run.baseline_checkpoint_s is not None and sched.split is not None and step <= sched.split[0]:
            write_s = run.baseline_checkpoint_s
        mode = "async" if run.async_checkpoint else "sync"
        path = f"{run.checkpoint_dir}/step_{step:07d}"
        lines.append((begin, f"INFO [checkpoint.py:88] saving checkpoint step {step} to {path} ({size:.1f} GB, {mode})"))
        if run.async_checkpoint:
            lines.append((finish, f"INFO [checkpoint.py:97] step {step}: state staged to host in {finish - begin:.2f}s, "
                                  f"writing in background"))
            done = begin + write_s
            if done <= now:
                lines.append((done, f"INFO [checkpoint.py:121] saved checkpoint step {step} in "
                                    f"{write_s:.2f}s ({size / write_s:.2f} GB/s)"))
        elif finish <= now and step in run.broken_checkpoints:
            # dcp.save raised on every rank; train.py logs it and trains on without this checkpoint.
            failure = checkpoint_exception(cluster.seed, run, run.broken_checkpoints[step])
            kept = max(sched.resume_step, step - sched.every)
            lines.append((finish, f"ERROR [checkpoint.py:104] checkpoint step {step} failed after "
                                  f"{finish - begin:.2f}s, training paused; latest checkpoint stays step {kept}, "
                                  f"training continues: {failure}"))
        elif finish <= now:
            lines.append((finish, f"INFO [checkpoint.py:97] saved checkpoint step {step} in {finish - begin:.2f}s "
                                  f"({size / (finish - begin):.2f} GB/s), training paused"))
    lines += [(at, f"INFO [checkpoint.py:134] removed old checkpoint {run.checkpoint_dir}/step_{step:07d} "
                   f"(keep_last={run.keep_last})") for step, at in removed_checkpoints(cluster)]
    return lines


def _train_entries(cluster: Cluster) -> list[tuple[float, str]]:
    """Rank 0's log lines written so far: (offset s, text), in order."""
    run = cluster.training
    if run is None:
        return []
    now = written_until(cluster)
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    entries: list[tuple[float, str]] = []
    for offset, reason in sorted(run.restarts):
        if offset <= now:
            entries.append((offset, f"ERROR [train.py:305] run stopped: {reason}"))
    entries += [e for e in _header(cluster, run, sched, prof) if e[0] <= now]
    failed = run.start_failure
    if failed is not None:
        entries.append(_start_failure_line(cluster, run))
    else:
        entries += _step_lines(cluster, run, sched, prof, now)
    down = teardown_s(cluster)
    if run.hang_in == "crash" and run.hang_rank != 0 and down is not None and down - 0.4 <= now:
        # Another rank's process died; srun's SIGTERM reaches rank 0, which logs it on its way out.
        entries.append((down - 0.4, f"WARNING [train.py:322] SIGTERM received at step "
                                    f"{sched.completed_at(down) + 1}, exiting"))
    entries.sort(key=lambda e: e[0])
    return entries


def _start_failure_line(cluster: Cluster, run: TrainingRun) -> tuple[float, str]:
    """Rank 0's last line when one node's ranks could not initialise.

    A CUDA failure there kills the step before rank 0 reaches a collective: it logs the SIGTERM
    srun sends. An NCCL init failure breaks the communicator's bootstrap ring: rank 0, waiting on
    its ring predecessor (the last rank), reads the closed socket and raises ``ncclRemoteError``
    ("socketProgress: Connection closed by remote peer host<port>", NVIDIA/nccl issues 1232 and
    1612), which train.py logs before exiting.
    """
    failed = run.start_failure
    assert failed is not None
    if failed.kind == "cuda":
        return failed.end_s - 0.4, "WARNING [train.py:322] SIGTERM received before the first step, exiting"
    peer = run.ranks[-1].node
    port = rng(cluster.seed, "bootstrap-port", peer).randint(32_768, 60_999)
    return failed.at_s + 0.05, (
        f"ERROR [train.py:305] run stopped: torch.distributed.DistBackendError: NCCL error in: "
        f"../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error, "
        f"NCCL version {cluster.versions.nccl}\nncclRemoteError: A call failed possibly due to a network error or a "
        f"remote process exiting prematurely.\nLast error:\nsocketProgress: Connection closed by remote peer "
        f"{peer}.{cluster.domain}<{port}>")


def train_log(cluster: Cluster) -> str:
    """Rank 0's log (``train.log``) up to the current simulated instant."""
    return "".join(f"{_ts(cluster, t)} {text}\n" for t, text in _train_entries(cluster))


def train_log_mtime(cluster: Cluster) -> float:
    """The instant of ``train.log``'s last line (the run's start while it has none)."""
    run = cluster.training
    assert run is not None
    return max((t for t, _ in _train_entries(cluster)), default=run.started_s)


def previous_schedule(cluster: Cluster) -> tuple[Schedule, float] | None:
    """The previous job's schedule and the instant it stopped, if the run had a previous job."""
    run = cluster.training
    before = previous_run(run) if run is not None else None
    if run is None or before is None:
        return None
    prof = profile_of(cluster, before)
    current = schedule(cluster)
    # The previous job saved the checkpoint this run resumed from, ran a few more steps, then was cancelled.
    extra = 37
    every = current.every
    first = max(0, current.resume_step - every)
    end = run.started_s - 420.0
    steps_run = current.resume_step - first + extra
    steady = end - steps_run * prof.step_s - prof.checkpoint_stall_s - 1.0
    sched = Schedule(started_s=steady - 174.0, init_s=steady - 136.0, first_batch_s=steady - 41.0, steady_s=steady,
                     resume_step=first, step_s=prof.step_s, every=every, stall_s=prof.checkpoint_stall_s, hang_s=None)
    return sched, end


def previous_log(cluster: Cluster) -> str:
    """The previous job's log (``train.log.1``), run with ``run.previous_config`` until ``scancel`` stopped it."""
    run = cluster.training
    before = previous_run(run) if run is not None else None
    timing = previous_schedule(cluster)
    if run is None or before is None or timing is None:
        return ""
    sched, end = timing
    prof = profile_of(cluster, before)
    entries = _header(cluster, before, sched, prof, run.previous_job_id) + _step_lines(cluster, before, sched, prof,
                                                                                        end)
    # The job ended at the SIGTERM: nothing it would have logged later (a later retention) is in its log.
    entries = [e for e in entries if e[0] <= end]
    entries.append((end, "INFO [train.py:322] SIGTERM received: stopping"))
    entries.sort(key=lambda e: e[0])
    return "".join(f"{_ts(cluster, t)} {text}\n" for t, text in entries)
