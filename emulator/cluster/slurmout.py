"""The Slurm output file (``slurm-<jobid>.out``): launches, NCCL lines, watchdog, teardown, kill.

Each attempt's ``set -x`` trace and torchrun banner, the NCCL_DEBUG init
lines (:mod:`emulator.cluster.nccl_debug`), a stopped rank's PyTorch NCCL
watchdog report on every waiting rank and the launcher's teardown
(:mod:`emulator.cluster.timeline` says when), and slurmstepd's notice when
slurmctld kills the job. Nothing is written after the job ended.
"""

from __future__ import annotations

import math

from emulator.cluster.ids import rng
from emulator.cluster.jobscript import attempts, config_path
from emulator.cluster.model import Cluster
from emulator.cluster.nccl_debug import Proc, init_lines
from emulator.cluster.scheduler import compress_hostlist
from emulator.cluster.steps import BUCKET_BYTES, profile
from emulator.cluster.timeline import (
    CRASH_TEARDOWN_S,
    NCCL_TIMEOUT_MS,
    PAST_ATTEMPT_S,
    TEARDOWN_S,
    hang_fired_s,
    schedule,
    teardown_s,
    written_until,
)
from emulator.cluster.training import Rank, TrainingRun

#: slurm.conf KillWait: seconds between SIGTERM and SIGKILL when a step is killed.
KILL_WAIT_S = 30


def _glog(cluster: Cluster, offset: float, level: str = "W") -> str:
    """``W0311 07:30:53.412000`` (c10d / torchrun glog-style prefix)."""
    dt = cluster.clock.at(offset)
    return f"{level}{dt:%m%d %H:%M:%S}.{dt.microsecond:06d}"


def _procs(run: TrainingRun) -> list[Proc]:
    return [Proc(rank=r.rank, node=r.node, gpu=r.gpu, pid=r.pid) for r in run.ranks]


def nccl_init(cluster: Cluster, run: TrainingRun) -> list[str]:
    """NCCL_DEBUG's init lines of the job's communicators: the world's, then each tensor-parallel group's.

    A tensor-parallel group's ranks are numbered within it; where they run is where the launch put them,
    so a group inside one node connects over NVLink and one spread over nodes over the network. Its
    rank 0's whole init is printed for group 0 (global rank 0's), as for the world's.
    """
    out = init_lines(cluster, _procs(run), run.env)
    if run.tp > 1:
        for g, group in enumerate(run.tp_groups()):
            procs = [Proc(rank=i, node=r.node, gpu=r.gpu, pid=r.pid) for i, r in enumerate(group)]
            out += init_lines(cluster, procs, run.env, comm=f"tp{g}", detail=g == 0)
    return out


def _launch(cluster: Cluster, run: TrainingRun, start_s: float, agents: dict[str, int], total: int) -> list[str]:
    """The batch script's trace for one attempt (``set -x``) and torchrun's banner on each node."""
    master = run.nodes[0] if run.nodes else "node01"
    loop = [f"+ for attempt in {' '.join(str(a) for a in range(1, total + 1))}"] if total > 1 else []
    if run.distribution:
        # srun starts the ranks (no torchrun, no banner); the rendezvous was exported before ``set -x``.
        return loop + [f"+ srun --ntasks-per-node=8 --distribution={run.distribution} --kill-on-bad-exit=1 "
                       f"python3 -u train.py --config {config_path(run)}"]
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
    if run.start_failure is not None:
        return "\n".join(out + start_failed(cluster, run, agents)) + "\n"
    if now >= sched.init_s + 20.0:
        out += nccl_init(cluster, run)
    watchdog = hang_fired_s(cluster)
    if watchdog is not None and now >= watchdog and run.hang_in == "crash":
        out += _crashed(cluster, run, watchdog, now, agents)
        if now >= watchdog + CRASH_TEARDOWN_S:
            out += _gave_up(total, total)
    elif watchdog is not None and now >= watchdog and run.hang_s is not None and run.hang_rank is not None:
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


def slurm_out_mtime(cluster: Cluster) -> float:
    """The instant of the Slurm output's last line (see :func:`slurm_out`)."""
    run = cluster.training
    assert run is not None
    now = written_until(cluster)
    sched = schedule(cluster)
    marks = [sched.started_s + 6.0 + 0.13 * (len(run.nodes) - 1)]
    if run.start_failure is not None:
        marks.append(run.start_failure.end_s)
    if init_lines(cluster, _procs(run), run.env):
        marks.append(sched.init_s + 20.0)
    watchdog = hang_fired_s(cluster)
    if watchdog is not None and run.hang_rank is not None:
        marks += [watchdog + 0.15, teardown_s(cluster) or watchdog]
    job = cluster.slurm.job(run.job_id)
    if job is not None and job.state in ("NODE_FAIL", "CANCELLED") and job.end_s is not None:
        marks.append(job.end_s)
    return max((m for m in marks if m <= now), default=sched.started_s)


#: PyTorch's message when CUDA's lazy initialisation fails on ``cudaErrorSystemNotReady`` (802), the
#: error a node whose Fabric Manager is not running gives (pytorch/pytorch issues 35710, 130113;
#: huggingface/huggingface_hub issue 4134).
CUDA_802 = ("Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")
#: Frames of a rank whose first CUDA call failed (``torch.cuda.set_device`` runs CUDA's lazy init).
_TORCH = "/usr/local/lib/python3.10/dist-packages/torch"
CUDA_FRAMES = (("/home/alice/jobs/train.py", 335, "<module>", "main()"),
               ("/home/alice/jobs/train.py", 52, "main", "torch.cuda.set_device(local_rank)"),
               (f"{_TORCH}/cuda/__init__.py", 420, "set_device", "torch._C._cuda_setDevice(device)"),
               (f"{_TORCH}/cuda/__init__.py", 314, "_lazy_init", "torch._C._cuda_init()"))
#: ... and of one whose NCCL communicator init failed (DDP verifies parameters with the first collective).
NCCL_FRAMES = (("/home/alice/jobs/train.py", 335, "<module>", "main()"),
               ("/home/alice/jobs/train.py", 97, "main", "model = DDP(model, device_ids=[local_rank])"),
               (f"{_TORCH}/nn/parallel/distributed.py", 825, "__init__",
                "_verify_param_shape_across_processes(self.process_group, parameters)"),
               (f"{_TORCH}/distributed/utils.py", 288, "_verify_param_shape_across_processes",
                "return dist._verify_params_across_processes(process_group, tensors, logger)"))


def rank_error(cluster: Cluster, run: TrainingRun) -> list[str]:
    """The exception the failing node's ranks raised, as PyTorch prints it (without the traceback).

    CUDA: PyTorch's lazy-init message for error 802. NCCL: a ``DistBackendError`` carrying
    ``ncclGetErrorString``, the error's name and meaning, and NCCL's last WARN (the format of
    pytorch/pytorch issue 170045 and NVIDIA/nccl issue 1410, with the NCCL version the model runs).
    """
    failed = run.start_failure
    assert failed is not None
    if failed.kind == "cuda":
        return [f"RuntimeError: {CUDA_802}"]
    return [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
            f"{failed.error}, NCCL version {cluster.versions.nccl}",
            "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", failed.warning]


def start_failed(cluster: Cluster, run: TrainingRun, agents: dict[str, int]) -> list[str]:
    """What the job wrote when one node's ranks could not initialise: their tracebacks, torchrun's
    failure summary there, then srun killing the step (``--kill-on-bad-exit=1``)."""
    failed = run.start_failure
    assert failed is not None
    mine = [r for r in run.ranks if r.node == failed.node]
    frames = CUDA_FRAMES if failed.kind == "cuda" else NCCL_FRAMES
    out: list[str] = []
    for r in mine:
        out.append(f"[rank{r.rank}]: Traceback (most recent call last):")
        for path, line, func, code in frames:
            out += [f'[rank{r.rank}]:   File "{path}", line {line}, in {func}', f"[rank{r.rank}]:     {code}"]
        out += [f"[rank{r.rank}]: {text}" for text in rank_error(cluster, run)]
    out += _child_failed(cluster, run, mine, failed.at_s, agents[failed.node], 1)
    out += _step_killed(cluster, run, failed.node, failed.end_s - 0.3)
    return out


def _child_failed(cluster: Cluster, run: TrainingRun, dead: list[Rank], at: float, agent: int,
                  exitcode: int) -> list[str]:
    """torchrun's report on the node whose workers exited: the first exit, then ``ChildFailedError``
    with every failure and the root cause (the format of pytorch/pytorch
    ``torch/distributed/elastic/multiprocessing/errors``; a signal's death names the signal)."""
    stamp = cluster.clock.at(at).strftime("%Y-%m-%d_%H:%M:%S")
    out = [f"{_glog(cluster, at + 0.4, 'E')} {agent} torch/distributed/elastic/multiprocessing/api.py:833] failed "
           f"(exitcode: {exitcode}) local_rank: {dead[0].local_rank} (pid: {dead[0].pid}) of binary: /usr/bin/python3",
           "Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>',
           "    sys.exit(main())",
           f'  File "{_TORCH}/distributed/launcher/api.py", line 263, in launch_agent', "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED",
           "-" * 60, "Failures:"]

    def failure(i: int, r: Rank) -> list[str]:
        trace = (f"Signal {-exitcode} ({_SIGNALS.get(-exitcode, 'SIGABRT')}) received by PID {r.pid}" if exitcode < 0
                 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return [f"[{i}]:", f"  time      : {stamp}", f"  host      : {r.node}",
                f"  rank      : {r.rank} (local_rank: {r.local_rank})", f"  exitcode  : {exitcode} (pid: {r.pid})",
                "  error_file: <N/A>", f"  traceback : {trace}"]

    for i, r in enumerate(dead[1:], start=1):
        out += failure(i, r)
    if len(dead) == 1:
        out.append("  <NO_OTHER_FAILURES>")
    return out + ["-" * 60, "Root Cause (first observed failure):", *failure(0, dead[0]), "=" * 60]


def _step_killed(cluster: Cluster, run: TrainingRun, failed: str, at: float) -> list[str]:
    """srun ending the step after one node's task exited non-zero (``--kill-on-bad-exit=1``)."""
    when = cluster.clock.at(at).strftime("%Y-%m-%dT%H:%M:%S")
    out = [f"srun: error: {failed}: task {run.nodes.index(failed)}: Exited with exit code 1",
           f"srun: Terminating StepId={run.job_id}.0"]
    out += [f"slurmstepd: error: *** STEP {run.job_id}.0 ON {node} CANCELLED AT {when} ***"
            for node in run.nodes if node != failed]
    out += [f"srun: error: {node}: task {i}: Terminated" for i, node in enumerate(run.nodes) if node != failed]
    return out + [f"srun: Force Terminated StepId={run.job_id}.0"]


_SIGNALS = {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM"}


def _crashed(cluster: Cluster, run: TrainingRun, fired: float, now: float, agents: dict[str, int]) -> list[str]:
    """A rank's process died of a sticky CUDA error: its NCCL watchdog's report and abort, torchrun's
    summary, srun killing the step. PyTorch 2.4's wording (pytorch/pytorch issue 126544)."""
    rank = run.ranks[run.hang_rank or 0]
    head = f"[rank{rank.rank}]:[{_glog(cluster, fired, 'E')}{rank.pid % 1000:03d} ProcessGroupNCCL.cpp:1515] "
    what = (f"[PG 0 (default_pg) Rank {rank.rank}] Process group watchdog thread terminated with exception: "
            f"CUDA error: {run.crash_error}")
    out = [head + what,
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
           "might be incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
           "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "",
           "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {what}"]
    down = fired + CRASH_TEARDOWN_S
    if now >= down:
        out += _child_failed(cluster, run, [rank], fired, agents[rank.node], -6)
        out += _step_killed(cluster, run, rank.node, down - 0.3)
    return out


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
