"""What the training run is doing: its phases so far, and each rank's state at an instant.

:func:`phases` lists the run's history (earlier attempts, allocation,
initialisation, steady state, checkpoint saves, a hang and its teardown) as
``timeline`` charts it; :func:`where` says what one rank's main thread is
doing, as ``py-spy`` shows it; :func:`gpu_utilization` samples that state
into the GPU-Util a reader sees. All of it follows from
:mod:`emulator.cluster.steps` and :mod:`emulator.cluster.timeline`.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.model import Cluster
from emulator.cluster.steps import StepProfile, profile
from emulator.cluster.timeline import (
    NCCL_TIMEOUT_MS,
    PAST_ATTEMPT_S,
    TEARDOWN_S,
    Schedule,
    failed_at,
    hang_fired_s,
    hung_node,
    schedule,
)
from emulator.cluster.training import Rank, TrainingRun


@dataclass(frozen=True)
class Phase:
    """One span of the run's history, as ``timeline`` lists it."""

    name: str                  # allocation, initialisation, first batch, steady state, shared, checkpoint, hang,
                               # failure, recovery
    start_s: float
    end_s: float
    detail: str = ""


def phases(cluster: Cluster, until: float | None = None) -> list[Phase]:
    """The run's phases from its (re)start to ``until`` (default: now)."""
    run = cluster.training
    if run is None:
        return []
    now = cluster.clock.elapsed if until is None else until
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    out: list[Phase] = []
    for offset, reason in sorted(run.restarts):
        if offset < sched.started_s:
            out.append(Phase("recovery", offset, sched.started_s, reason))
    past = sorted(h for h in run.past_hangs if h[0] < sched.started_s)
    for i, (hang, rank) in enumerate(past):
        fired = hang + NCCL_TIMEOUT_MS / 1000.0 + 0.06
        begin = past[i - 1][0] + NCCL_TIMEOUT_MS / 1000.0 + TEARDOWN_S + 8.0 if i else hang - PAST_ATTEMPT_S
        until = past[i + 1][0] - PAST_ATTEMPT_S if i + 1 < len(past) else sched.started_s
        out.append(Phase("steady state", begin, hang, f"attempt {i + 1}"))
        out.append(Phase("hang", hang, fired, f"rank {rank} stopped"))
        out.append(Phase("failure", fired, fired + TEARDOWN_S, "NCCL watchdog timeout, job torn down"))
        out.append(Phase("recovery", fired + TEARDOWN_S, max(fired + TEARDOWN_S, min(until, sched.started_s)),
                         "relaunch from the latest checkpoint"))
    out.append(Phase("allocation", sched.started_s, min(now, sched.init_s), "srun, container start"))
    failed = run.start_failure
    if failed is not None:   # the ranks on one node could not initialise: no step ever ran
        what = "CUDA init failed" if failed.kind == "cuda" else "NCCL init failed"
        out.append(Phase("initialisation", sched.init_s, min(now, failed.at_s), "NCCL init"))
        if now > failed.at_s:
            out.append(Phase("failure", failed.at_s, min(now, failed.end_s), f"{what} on {failed.node}, job killed"))
        return [p for p in out if p.end_s > p.start_s or p.name == "allocation"]
    if now > sched.init_s:
        out.append(Phase("initialisation", sched.init_s, min(now, sched.first_batch_s),
                         f"NCCL init, load step {sched.resume_step}"))
    if now > sched.first_batch_s:
        out.append(Phase("first batch", sched.first_batch_s, min(now, sched.steady_s), "data loader warm-up"))
    end = now if sched.hang_s is None else min(now, sched.hang_s)
    cuts = [(begin, finish, f"step {step}, {'async' if run.async_checkpoint else 'sync'}")
             for step, begin, finish in sched.saves_between(sched.steady_s, end)]
    change = sched.split[1] if sched.split is not None and sched.split[1] < end else None
    cursor = sched.steady_s
    for begin, finish, detail in sorted(cuts + ([(change, change, "")] if change is not None else [])):
        if begin < cursor:
            continue
        rate = sched.rate_at(sched.completed_at(begin - 1e-6) if begin > cursor else sched.resume_step)
        out.append(Phase("steady state", cursor, begin, f"{rate:.2f} s/step"))
        if detail:
            out.append(_save_phase(run, begin, min(finish, end), finish <= end, detail))
        cursor = finish
    if end > cursor:
        out.append(Phase("steady state", cursor, end, f"{sched.rate_at(sched.completed_at(end)):.2f} s/step"))
    out = _shared(run, sched, out)
    out.sort(key=lambda p: p.start_s)
    if sched.hang_s is not None and now > sched.hang_s:
        watchdog, down = hang_fired_s(cluster), failed_at(cluster)
        assert watchdog is not None and down is not None
        stopped = f"{hung_node(cluster)} down" if run.hang_in == "node" else f"rank {run.hang_rank} stopped"
        out.append(Phase("hang", sched.hang_s, min(now, watchdog, down), stopped))
        if now > watchdog and watchdog < down:
            why = f"CUDA error on rank {run.hang_rank}" if run.hang_in == "crash" else "NCCL watchdog timeout"
            out.append(Phase("failure", watchdog, min(now, down), f"{why}, job torn down"))
    return [p for p in out if p.end_s > p.start_s or p.name == "allocation"]



def _shared(run: TrainingRun, sched: Schedule, out: list[Phase]) -> list[Phase]:
    """The steady stretches cut where a benchmark shared the run's GPUs: those parts are ``shared``, at the
    slower rate the run stepped at then."""
    for span in run.shared:
        cut: list[Phase] = []
        for ph in out:
            lo, hi = max(ph.start_s, span.start_s), min(ph.end_s, span.end_s)
            if ph.name != "steady state" or lo >= hi:
                cut.append(ph)
                continue
            if ph.start_s < lo:
                cut.append(Phase(ph.name, ph.start_s, lo, ph.detail))
            rate = sched.rate_at(sched.completed_at(lo)) * span.slowdown
            cut.append(Phase("shared", lo, hi, f"{rate:.2f} s/step beside {span.label}"))
            if hi < ph.end_s:
                cut.append(Phase(ph.name, hi, ph.end_s, ph.detail))
        out = cut
    return out


#: What a failed save's rank raised, as its shard's write reported it (:mod:`emulator.cluster.savefailure`).
_SAVE_ERRORS = {"ost-full": "ENOSPC", "quota": "EDQUOT", "oom": "CUDA out of memory"}


def _save_phase(run: TrainingRun, begin: float, end: float, ended: bool, detail: str) -> Phase:
    """A checkpoint save; a save DCP reported failed (once it ended) is a failure, as train.log logs it."""
    step = int(detail.split()[1].rstrip(","))
    rank = run.broken_checkpoints.get(step)
    if rank is None or not ended:
        return Phase("checkpoint", begin, end, detail)
    why = _SAVE_ERRORS.get(run.checkpoint_why, "error")
    return Phase("failure", begin, end, f"checkpoint step {step} failed: rank {rank} {why}, no .metadata")

def where(cluster: Cluster, rank: Rank, offset: float | None = None, prof: StepProfile | None = None,
          sched: Schedule | None = None) -> str:
    """What a rank's main thread is doing at ``offset`` (default now).

    One of ``data`` (waiting for the loader), ``compute``, ``collective``
    (in the all-reduce, including waiting for a late rank), ``checkpoint``
    (writing its shard), ``init``, ``hung-gpu``/``hung-io`` (the stuck rank)
    or ``done`` (not started, or gone: its node died, the job ended).
    """
    run = cluster.training
    assert run is not None
    now = cluster.clock.elapsed if offset is None else offset
    prof = prof or profile(cluster)
    sched = sched or schedule(cluster, prof)
    gone = failed_at(cluster)
    if now < sched.steady_s or (gone is not None and now >= gone):
        return "init" if sched.init_s <= now < sched.steady_s else "done"
    if sched.hang_s is not None and now >= sched.hang_s:
        if rank.rank == run.hang_rank:
            return {"io": "hung-io", "node": "done", "crash": "done"}.get(run.hang_in, "hung-gpu")
        return "collective"
    if sched.saving_at(now) is not None and not run.async_checkpoint:
        return "checkpoint"
    mine = next((r for r in prof.ranks if r.rank == rank.rank), None)
    if mine is None:
        return "done"
    into = sched.into_step(now)
    if into < mine.data_s:
        return "data"
    if into < mine.data_s + mine.compute_s:
        return "compute"
    return "collective"


#: States in which a rank's GPU runs kernels (a collective spins an NCCL kernel while it waits).
GPU_BUSY = ("compute", "collective", "hung-gpu")


def gpu_utilization(cluster: Cluster, node: str, gpu: int, offset: float | None = None) -> int | None:
    """GPU-Util (%) over the second before ``offset`` for the rank on (node, gpu); None when no rank runs there.

    Input waits and synchronous checkpoint saves leave the GPU idle; waiting
    in an all-reduce does not (the NCCL kernel spins), so a straggler's
    peers read 100% while they wait.
    """
    run = cluster.training
    rank = next((r for r in run.ranks if r.node == node and r.gpu == gpu), None) if run else None
    if rank is None:
        return None
    now = cluster.clock.elapsed if offset is None else offset
    prof = profile(cluster)
    sched = schedule(cluster, prof)
    samples = 20
    busy = sum(where(cluster, rank, now - i / samples, prof, sched) in GPU_BUSY for i in range(samples))
    return round(100 * busy / samples)
