"""The training job's files: rank 0's log, the Slurm output file, config, checkpoints.

Every line is rendered from the step model (:mod:`emulator.cluster.steps`)
at the simulated clock's current instant, so the files grow as time passes
(``tail -f`` shows new lines) and every number agrees with ``timeline``,
``py-spy`` and the collective model. Nothing here is stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from posixpath import dirname

from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.cluster.nccl_debug import Proc, init_lines
from emulator.cluster.scheduler import compress_hostlist
from emulator.cluster.steps import (
    BUCKET_BYTES,
    NCCL_TIMEOUT_MS,
    PAST_ATTEMPT_S,
    TEARDOWN_S,
    Schedule,
    StepProfile,
    failed_at,
    hang_fired_s,
    hung_node,
    job_end_s,
    previous_run,
    profile,
    profile_of,
    schedule,
)
from emulator.cluster.training import TrainingRun

#: Step lines kept in the log file; older ones were rotated away.
MAX_STEP_LINES = 5000
#: slurm.conf KillWait: seconds between SIGTERM and SIGKILL when a step is killed.
KILL_WAIT_S = 30


def attempts(run: TrainingRun) -> int:
    """Launches the batch script makes: one, or a retry loop when earlier attempts hung.

    The attempt running now is always the script's last, so when it fails the
    script exits non-zero and Slurm records the job FAILED.
    """
    return len(run.past_hangs) + 1


def files(cluster: Cluster) -> dict[str, Callable[[], str]]:
    """Absolute path -> producer of the file's text now."""
    run = cluster.training
    if run is None:
        return {}
    job = cluster.slurm.job(run.job_id)
    out = job.stdout if job and job.stdout else f"/lustre/jobs/{run.name}/slurm-{run.job_id}.out"
    jobdir = dirname(out)
    table: dict[str, Callable[[], str]] = {
        f"{jobdir}/train.log": lambda: train_log(cluster),
        out: lambda: slurm_out(cluster),
        config_path(run): lambda: config_text(run),
        script_path(cluster): lambda: job_script(cluster),
        f"{run.checkpoint_dir}/latest_checkpointed_iteration.txt": lambda: f"{latest_checkpoint(cluster)}\n",
    }
    if run.previous_config:
        table[f"{jobdir}/train.log.1"] = lambda: previous_log(cluster)
    return table


def mtimes(cluster: Cluster) -> dict[str, Callable[[], float]]:
    """Absolute path -> when the file was last written (offset s), for ``ls -l``.

    A log that stopped growing keeps the instant of its last line, so a stale
    ``train.log`` shows as stale; see :func:`files` for the paths.
    """
    run = cluster.training
    paths = files(cluster)
    if run is None:
        return {}
    job = cluster.slurm.job(run.job_id)
    submitted = job.submit_s if job is not None else run.started_s
    table: dict[str, Callable[[], float]] = {}
    for path in paths:
        if path.endswith("/train.log"):
            table[path] = lambda: max((t for t, _ in _train_entries(cluster)), default=run.started_s)
        elif path.endswith(".out"):
            table[path] = lambda: _slurm_out_mtime(cluster)
        elif path.endswith("latest_checkpointed_iteration.txt"):
            table[path] = lambda: _checkpoint_mtime(cluster)
        elif path.endswith(".yaml"):
            table[path] = lambda: submitted - 410.0
        elif path == script_path(cluster):
            table[path] = lambda: submitted - 95.0
        elif path.endswith("/train.log.1"):
            table[path] = lambda: run.started_s - 420.0
    return table


def script_path(cluster: Cluster) -> str:
    run = cluster.training
    job = cluster.slurm.job(run.job_id) if run else None
    return job.command if job and job.command else "/home/alice/jobs/pretrain.sbatch"


def job_script(cluster: Cluster) -> str:
    """The batch script that launched the run, with the environment it exports."""
    run = cluster.training
    if run is None:
        return ""
    job = cluster.slurm.job(run.job_id)
    out = job.stdout.replace(str(run.job_id), "%j") if job and job.stdout else "slurm-%j.out"
    tasks, cpus, gpus = (job.ntasks_per_node, job.cpus_per_task, job.gpus_per_node) if job else (8, 28, 8)
    lines = ["#!/bin/bash", f"#SBATCH --job-name={run.name}", "#SBATCH --partition=gpu",
             f"#SBATCH --nodes={len(run.nodes)}", f"#SBATCH --ntasks-per-node={tasks}"]
    lines += [f"#SBATCH --cpus-per-task={cpus}"] if cpus > 1 else []
    lines += [f"#SBATCH --gpus-per-node={gpus}", "#SBATCH --exclusive", f"#SBATCH --output={out}",
              "#SBATCH --time=2-00:00:00", ""]
    lines += [f"export {k}={v}" for k, v in run.env.items()]
    launch = ["srun --ntasks-per-node=1 --kill-on-bad-exit=1 torchrun --nnodes=$SLURM_NNODES --nproc-per-node=8 \\",
              "    --rdzv-id=$SLURM_JOB_ID --rdzv-backend=c10d \\",
              "    --rdzv-endpoint=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1):29500 \\",
              f"    train.py --config {config_path(run)}"]
    lines += ["", "set -x"]
    n = attempts(run)
    if n == 1:
        lines += launch
    else:
        lines += [f"for attempt in {' '.join(str(a) for a in range(1, n + 1))}; do"]
        lines += ["    " + text for text in launch[:-1]] + ["    " + launch[-1] + " && exit 0",
                                                              f'    echo "attempt $attempt of {n} failed"',
                                                              "done", "exit 1"]
    return "\n".join(lines) + "\n"


def config_path(run: TrainingRun) -> str:
    return f"/home/alice/jobs/configs/{run.model_name}.yaml"


def config_text(run: TrainingRun) -> str:
    """The job's YAML config as the launcher reads it."""
    lines = [
        f"# {run.model_name} pre-training",
        "model:",
        f"  name: {run.model_name}",
        f"  params: {run.params_b}e9",
        f"  hidden_size: {run.hidden}",
        f"  num_layers: {run.layers}",
        "parallel:",
        f"  tensor: {run.tp}",
        f"  pipeline: {run.pp}",
        "train:",
        f"  seq_len: {run.seq_len}",
        f"  micro_batch_size: {run.micro_batch}",
        f"  grad_accum_steps: {run.grad_accum}",
        f"  precision: {run.precision}",
        f"  activation_checkpointing: {str(run.activation_recompute).lower()}",
        f"  log_interval: {run.log_interval}",
        "data:",
        f"  path: {run.data_dir}",
        f"  num_workers: {run.loader_workers}",
        f"  prefetch_factor: {run.prefetch_factor}",
        f"  pin_memory: {str(run.pin_memory).lower()}",
        "checkpoint:",
        f"  dir: {run.checkpoint_dir}",
        f"  every: {run.checkpoint_every}",
        f"  async: {str(run.async_checkpoint).lower()}",
    ]
    return "\n".join(lines) + "\n"


# -- time stamps ------------------------------------------------------------------------


def _ts(cluster: Cluster, offset: float) -> str:
    """``2026-03-11 08:59:58,123`` (Python logging's default asctime)."""
    dt = cluster.clock.at(offset)
    return dt.strftime("%Y-%m-%d %H:%M:%S") + f",{dt.microsecond // 1000:03d}"


def _glog(cluster: Cluster, offset: float, level: str = "W") -> str:
    """``W0311 07:30:53.412000`` (c10d / torchrun glog-style prefix)."""
    dt = cluster.clock.at(offset)
    return f"{level}{dt:%m%d %H:%M:%S}.{dt.microsecond:06d}"


# -- rank 0's training log ------------------------------------------------------------------


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
    return [
        (sched.init_s + 1.2, f"INFO [train.py:64] job {job_id or run.job_id} on {hosts}: {run.model_name} ({run.params_b:g}B "
                             f"params), world size {run.world_size} (tp={run.tp} pp={run.pp} dp={run.dp}), global batch "
                             f"{run.global_batch} x {run.seq_len} = {run.tokens_per_step:,} tokens/step"),
        (sched.init_s + 1.3, f"INFO [train.py:71] config {config_path(run)}: micro_batch={run.micro_batch} "
                             f"grad_accum={run.grad_accum} precision={run.precision} "
                             f"activation_checkpointing={str(run.activation_recompute).lower()} "
                             f"num_workers={run.loader_workers} checkpoint_every={run.checkpoint_every} "
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
    for step in range(start, last + 1, every):
        end = sched.step_end(step)
        begin = sched.step_end(step - every) if step - every > sched.resume_step else sched.steady_s
        jit = _jitter(cluster.seed, step)
        step_time = (end - begin) / min(every, step - sched.resume_step) * (1.0 + jit)
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
        elif finish <= now:
            lines.append((finish, f"INFO [checkpoint.py:97] saved checkpoint step {step} in {finish - begin:.2f}s "
                                  f"({size / (finish - begin):.2f} GB/s), training paused"))
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
    entries += _step_lines(cluster, run, sched, prof, now)
    entries.sort(key=lambda e: e[0])
    return entries


def train_log(cluster: Cluster) -> str:
    """Rank 0's log (``train.log``) up to the current simulated instant."""
    return "".join(f"{_ts(cluster, t)} {text}\n" for t, text in _train_entries(cluster))


def previous_log(cluster: Cluster) -> str:
    """The previous job's log (``train.log.1``), run with ``run.previous_config``."""
    run = cluster.training
    before = previous_run(run) if run is not None else None
    if run is None or before is None:
        return ""
    prof = profile_of(cluster, before)
    current = schedule(cluster)
    # The previous job saved the checkpoint this run resumed from, ran a few more steps, then stopped.
    extra = 37
    every = current.every
    first = max(0, current.resume_step - every)
    end = run.started_s - 420.0
    steps_run = current.resume_step - first + extra
    steady = end - steps_run * prof.step_s - prof.checkpoint_stall_s - 1.0
    sched = Schedule(started_s=steady - 174.0, init_s=steady - 136.0, first_batch_s=steady - 41.0, steady_s=steady,
                     resume_step=first, step_s=prof.step_s, every=every, stall_s=prof.checkpoint_stall_s, hang_s=None)
    entries = _header(cluster, before, sched, prof, run.previous_job_id) + _step_lines(cluster, before, sched, prof,
                                                                                        end)
    entries.append((end, "INFO [train.py:322] stopping after requeue: SIGTERM received"))
    entries.sort(key=lambda e: e[0])
    return "".join(f"{_ts(cluster, t)} {text}\n" for t, text in entries)


# -- the Slurm output file ------------------------------------------------------------------


def _procs(run: TrainingRun) -> list[Proc]:
    return [Proc(rank=r.rank, node=r.node, gpu=r.gpu, pid=r.pid) for r in run.ranks]


def _launch(cluster: Cluster, run: TrainingRun, start_s: float, agents: dict[str, int], total: int) -> list[str]:
    """The batch script's trace for one attempt (``set -x``) and torchrun's banner on each node."""
    master = run.nodes[0] if run.nodes else "node01"
    loop = [f"+ for attempt in {' '.join(str(a) for a in range(1, total + 1))}"] if total > 1 else []
    out = loop + [f"++ scontrol show hostnames '{compress_hostlist(run.nodes)}'", "++ head -n 1",
                  f"+ srun --ntasks-per-node=1 --kill-on-bad-exit=1 torchrun --nnodes={len(run.nodes)} "
                  f"--nproc-per-node=8 --rdzv-id={run.job_id} --rdzv-backend=c10d --rdzv-endpoint={master}:29500 "
                  f"train.py --config {config_path(run)}"]
    for n_i, node in enumerate(run.nodes):
        prefix = f"{_glog(cluster, start_s + 6.0 + 0.13 * n_i)} {agents[node]} torch/distributed/run.py:793]"
        out += [f"{prefix} ", f"{prefix} *****************************************",
                f"{prefix} Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
                "your system being overloaded, please further tune the variable for optimal performance in your "
                "application as needed. ", f"{prefix} *****************************************"]
    return out


def agent_pids(run: TrainingRun, attempt_pids: dict[str, int] | None = None) -> dict[str, int]:
    """torchrun's pid on each node: just below the node's first rank pid."""
    agents = {}
    for n_i, node in enumerate(run.nodes):
        pid0 = attempt_pids[node] if attempt_pids else min(r.pid for r in run.ranks if r.node == node)
        agents[node] = pid0 - 31 - n_i
    return agents


def written_until(cluster: Cluster) -> float:
    """The last instant the job's output was written: now, or when the job (or its batch host) died."""
    run = cluster.training
    now = cluster.clock.elapsed
    end = job_end_s(cluster)
    if end is not None:
        now = min(now, end)
    if run is not None and run.hang_in == "node" and run.hang_s is not None and run.nodes \
            and hung_node(cluster) == run.nodes[0]:
        now = min(now, run.hang_s)  # the batch script and srun ran there
    return now


def slurm_out(cluster: Cluster) -> str:
    """``slurm-<jobid>.out``: each attempt's launch, NCCL_DEBUG lines, and how the job ended.

    A stopped rank's watchdog report and teardown, or slurmstepd's notice
    that a node failed; nothing is written after the job ended.
    """
    run = cluster.training
    if run is None:
        return ""
    now = written_until(cluster)
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    past = sorted(h for h in run.past_hangs if h[0] + NCCL_TIMEOUT_MS / 1000.0 + TEARDOWN_S <= sched.started_s)
    total = attempts(run)
    out: list[str] = []
    start = (past[0][0] - PAST_ATTEMPT_S) if past else sched.started_s
    if now < start:
        return ""
    for attempt, (hang_s, rank) in enumerate(past, start=1):
        r = rng(cluster.seed, "attempt", attempt)
        pids = {node: r.randint(60_000, 170_000) for node in run.nodes}
        agents = agent_pids(run, pids)
        fired = hang_s + NCCL_TIMEOUT_MS / 1000.0 + 0.06
        out += _launch(cluster, run, start, agents, total)
        seq = 4 + r.randint(200, 1400) * max(1, math.ceil(_grad_bytes(run) / BUCKET_BYTES))
        out += _watchdog(cluster, run, rank, seq, fired, fired + TEARDOWN_S, agents, pids)
        out += _gave_up(attempt, total)
        start = fired + TEARDOWN_S + 8.0
    agents = agent_pids(run)
    out += _launch(cluster, run, sched.started_s, agents, total)
    if now >= sched.init_s + 20.0:
        out += init_lines(cluster, _procs(run), run.env)
    watchdog = hang_fired_s(cluster)
    if watchdog is not None and now >= watchdog and run.hang_s is not None and run.hang_rank is not None:
        steps_done = sched.completed_at(run.hang_s) - sched.resume_step
        seq = 3 + steps_done * max(1, math.ceil(_grad_bytes(run) / BUCKET_BYTES)) + 1
        first = {node: min(r.pid for r in run.ranks if r.node == node) for node in run.nodes}
        out += _watchdog(cluster, run, run.hang_rank, seq, watchdog, now, agents, first)
        if now >= watchdog + TEARDOWN_S:
            out += _gave_up(total, total)
    job = cluster.slurm.job(run.job_id)
    if job is not None and job.state in ("NODE_FAIL", "CANCELLED") and job.end_s is not None and now >= job.end_s:
        out += _killed(cluster, run.job_id, run.nodes, job.failed_node, job.end_s)
    return "\n".join(out) + "\n"


def _slurm_out_mtime(cluster: Cluster) -> float:
    """The instant of the Slurm output's last line (see :func:`slurm_out`)."""
    run = cluster.training
    assert run is not None
    now = written_until(cluster)
    sched = schedule(cluster)
    marks = [sched.started_s + 6.0 + 0.13 * (len(run.nodes) - 1)]
    if init_lines(cluster, _procs(run), run.env):
        marks.append(sched.init_s + 20.0)
    watchdog = hang_fired_s(cluster)
    if watchdog is not None and run.hang_rank is not None:
        marks += [watchdog + 0.15, watchdog + TEARDOWN_S]
    job = cluster.slurm.job(run.job_id)
    if job is not None and job.state in ("NODE_FAIL", "CANCELLED") and job.end_s is not None:
        marks.append(job.end_s)
    return max((m for m in marks if m <= now), default=sched.started_s)


def _gave_up(attempt: int, total: int) -> list[str]:
    """The batch script's trace after a failed attempt (``set -x``): retry, or exit non-zero."""
    if total == 1:
        return []
    text = f"attempt {attempt} of {total} failed"
    return [f"+ echo '{text}'", text] + (["+ exit 1"] if attempt == total else [])


def _killed(cluster: Cluster, job_id: int, nodes: list[str], failed: str, at: float) -> list[str]:
    """What srun and the surviving slurmstepds write when slurmctld kills the job (a node failed, scancel)."""
    when = cluster.clock.at(at).strftime("%Y-%m-%dT%H:%M:%S")
    tail = f"CANCELLED AT {when} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" if failed \
        else f"CANCELLED AT {when} ***"
    lines = [f"srun: error: Node failure on {failed}"] if failed else []
    lines += [f"slurmstepd: error: *** JOB {job_id} ON {nodes[0]} {tail}",
              f"srun: Job step aborted: Waiting up to {KILL_WAIT_S + 2} seconds for job step to finish."]
    lines += [f"slurmstepd: error: *** STEP {job_id}.0 ON {node} {tail}" for node in nodes if node != failed]
    return lines


def _grad_bytes(run: TrainingRun) -> float:
    return run.params_b * 1e9 * 2.0 / (max(1, run.tp) * max(1, run.pp))


def _watchdog(cluster: Cluster, run: TrainingRun, hung: int, seq: int, fired: float, now: float,
              agents: dict[str, int], first_pids: dict[str, int]) -> list[str]:
    """The PyTorch 2.x NCCL watchdog report on every rank still waiting in the all-reduce, then the teardown."""
    numel = BUCKET_BYTES // 2
    lines: list[str] = []
    waiting = [r for r in run.ranks if r.rank != hung]
    for r in waiting:
        r_rng = rng(cluster.seed, "watchdog", r.rank, seq)
        t = fired + r_rng.uniform(0.0, 0.08)
        ns = r_rng.randrange(1000)
        ran = NCCL_TIMEOUT_MS + r_rng.randint(20, 95)
        lines.append(f"[rank{r.rank}]:[{_glog(cluster, t, 'E')}{ns:03d} ProcessGroupNCCL.cpp:607] [Rank {r.rank}] "
                     f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                     f"NumelIn={numel}, NumelOut={numel}, Timeout(ms)={NCCL_TIMEOUT_MS}) ran for {ran} milliseconds "
                     f"before timing out.")
    if run.env.get("TORCH_NCCL_DESYNC_DEBUG", "0") not in ("", "0") and waiting:
        first = waiting[0]
        lines.append(f"[rank{first.rank}]:[{_glog(cluster, fired + 0.09, 'E')}{seq % 1000:03d} "
                     f"ProcessGroupNCCL.cpp:1316] [PG 0 (default_pg) Rank {first.rank}] [{hung}] finished collective "
                     f"#{seq - 1}, but didn't join collective #{seq} (count {numel}, type BFloat16, op ALLREDUCE)")
    for r in waiting:
        t = fired + 0.1 + rng(cluster.seed, "watchdog2", r.rank, seq).uniform(0.0, 0.05)
        lines.append(f"[rank{r.rank}]:[{_glog(cluster, t, 'E')}{r.rank * 37 % 1000:03d} ProcessGroupNCCL.cpp:1664] "
                     f"[PG 0 (default_pg) Rank {r.rank}] Exception (either an error or timeout) detected by watchdog "
                     f"at work: {seq}, last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.")
        lines.append(f"[rank{r.rank}]:[{_glog(cluster, t, 'E')}{r.rank * 41 % 1000:03d} ProcessGroupNCCL.cpp:1709] "
                     f"[PG 0 (default_pg) Rank {r.rank}] To avoid data inconsistency, we are taking the entire process "
                     f"down.")
    down = fired + TEARDOWN_S
    if now >= down:
        for node, agent in agents.items():
            local = min(r.local_rank for r in run.ranks if r.node == node)
            lines.append(f"{_glog(cluster, down - 1.0, 'E')} {agent} torch/distributed/elastic/multiprocessing/"
                         f"api.py:833] failed (exitcode: -6) local_rank: {local} (pid: {first_pids[node]}) of binary: "
                         f"/usr/bin/python3")
        for i, node in enumerate(run.nodes):
            lines.append(f"srun: error: {node}: task {i}: Exited with exit code 1")
    return lines


# -- checkpoints -------------------------------------------------------------------------


def latest_checkpoint(cluster: Cluster) -> int:
    """The step the latest-checkpoint pointer names (the last save that finished)."""
    run = cluster.training
    if run is None:
        return 0
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    latest = sched.resume_step
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        if begin + prof.checkpoint_write_s <= now:
            latest = step
    return latest


def _checkpoint_mtime(cluster: Cluster) -> float:
    """When the latest-checkpoint pointer was last written: the end of the last save that finished."""
    run = cluster.training
    assert run is not None
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    done = [begin + prof.checkpoint_write_s for _step, begin, _finish in sched.saves_between(sched.steady_s, now)]
    return max((d for d in done if d <= now), default=sched.started_s - 600.0)


def checkpoint_files(cluster: Cluster, keep: int = 3) -> dict[str, tuple[int, float]]:
    """Files of the checkpoint directory now: absolute path -> (size in bytes, mtime offset s).

    The last ``keep`` finished saves, each a ``step_NNNNNNN`` directory with
    one ``__<rank>_0.distcp`` shard per rank and a ``.metadata`` file written
    last; a save in progress shows its shards growing; a broken save lacks a
    shard.
    """
    run = cluster.training
    if run is None:
        return {}
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    now = cluster.clock.elapsed if (gone := failed_at(cluster)) is None else min(cluster.clock.elapsed, gone)
    shard = int(prof.checkpoint_bytes / max(1, run.world_size))
    # (step, fraction written, when the writing stopped)
    saves: list[tuple[int, float, float]] = [(sched.resume_step, 1.0, sched.started_s - 600.0)]
    for step, begin, _finish in sched.saves_between(sched.steady_s, now):
        write = prof.checkpoint_write_s
        done = min(1.0, (now - begin) / max(1e-6, write))
        saves.append((step, done, min(now, begin + write)))
    finished = [s for s in saves if s[1] >= 1.0][-keep:]
    partial = [s for s in saves if s[1] < 1.0]
    table: dict[str, tuple[int, float]] = {}
    for step, done, mtime in finished + partial:
        base = f"{run.checkpoint_dir}/step_{step:07d}"
        missing = run.broken_checkpoints.get(step)
        for r in run.ranks:
            if r.rank != missing:
                table[f"{base}/__{r.rank}_0.distcp"] = (int(shard * done), mtime - 0.01 * (len(run.ranks) - r.rank))
        if done >= 1.0:
            table[f"{base}/.metadata"] = (1_412_000 + 96 * len(run.ranks), mtime)
    return table
