"""The training run on the simulated clock: where its steps and saves fall, and when it ends.

:func:`schedule` places the run (allocation, initialisation, first batch,
steady state at the step time of :func:`emulator.cluster.steps.profile`,
checkpoint saves, a hang); :func:`hang_fired_s`, :func:`teardown_s`,
:func:`job_end_s` and :func:`failed_at` say when a stopped rank trips the
NCCL watchdog, when the launcher has torn the job down, and when Slurm
ended it; :func:`written_until`, the last instant the job's logs grew. What
the ranks do at an instant is :mod:`emulator.cluster.activity`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

from emulator.cluster import memo
from emulator.cluster.model import Cluster
from emulator.cluster.steps import StepProfile, profile
from emulator.cluster.training import TrainingRun

#: PyTorch's default ProcessGroupNCCL timeout (ms).
NCCL_TIMEOUT_MS = 600_000
#: How long after the watchdog fires the launcher has torn the job down, s.
TEARDOWN_S = 31.0
#: After a rank's CUDA error (``hang_in == "crash"``): until its NCCL watchdog thread polls the
#: work's CUDA event, meets the sticky error and aborts the process, s ...
CRASH_DETECT_S = 0.8
#: ... and until torchrun has seen the exit and srun (``--kill-on-bad-exit=1``) killed the step, s.
CRASH_TEARDOWN_S = 1.6
#: How long an earlier, failed attempt of the job ran before it hung, s.
PAST_ATTEMPT_S = 2400.0


@dataclass(frozen=True)
class Schedule:
    """Where the run's phases fall on the clock (offsets in seconds from the clock's start).

    Steps run at ``step_s``; when a condition began during the run
    (``change_s``), the steps before it ran at ``early_step_s``. A checkpoint
    save follows every step that is a multiple of ``every`` and delays the
    next step by ``stall_s``. While a benchmark shared the run's GPUs
    (``slowed``: start, end, slowdown) the run advanced ``slowdown`` times
    slower: the steps are placed on the run's own clock, which falls behind
    the wall clock in those stretches (:meth:`progress`, :meth:`wall`).
    """

    started_s: float           # allocation granted, srun launched
    init_s: float              # processes up, NCCL and model initialisation begins
    first_batch_s: float       # waiting for the first input batch
    steady_s: float            # first step starts
    resume_step: int           # the checkpoint step the run resumed from
    step_s: float
    every: int
    stall_s: float
    hang_s: float | None       # no step completes after this offset
    early_step_s: float | None = None
    change_s: float | None = None
    slowed: tuple[tuple[float, float, float], ...] = ()
    #: :meth:`completed_at`'s answers by offset: a schedule never changes, and GPU-Util asks each rank's
    #: state at the same twenty instants (:func:`emulator.cluster.activity.gpu_utilization`).
    _completed_by_offset: dict[float, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def progress(self, offset: float) -> float:
        """The run's own clock at wall ``offset``: behind it by what the slowed stretches cost."""
        run_clock = offset
        for start, end, slowdown in self.slowed:
            if offset > start:
                run_clock -= (min(offset, end) - start) * (1.0 - 1.0 / slowdown)
        return run_clock

    def wall(self, run_clock: float) -> float:
        """The wall offset at which the run's own clock reads ``run_clock`` (inverse of :meth:`progress`)."""
        behind = 0.0
        for start, end, slowdown in self.slowed:
            begin = start - behind
            if run_clock <= begin:
                break
            if run_clock < begin + (end - start) / slowdown:
                return start + (run_clock - begin) * slowdown
            behind += (end - start) * (1.0 - 1.0 / slowdown)
        return run_clock + behind

    def slowdown_at(self, offset: float) -> float:
        """How many times slower than its schedule the run advances at ``offset``."""
        return next((f for start, end, f in self.slowed if start <= offset < end), 1.0)

    def _end(self, start_step: int, start_s: float, step_s: float, step: int) -> float:
        saves = (step - 1) // self.every - start_step // self.every
        return start_s + (step - start_step) * step_s + saves * self.stall_s

    def _completed(self, start_step: int, start_s: float, step_s: float, offset: float) -> int:
        lo, hi = start_step, start_step + max(0, int((offset - start_s) / step_s)) + 1
        while lo < hi:                     # the largest step that ended by ``offset``
            mid = (lo + hi + 1) // 2
            if self._end(start_step, start_s, step_s, mid) <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    @cached_property
    def _split(self) -> tuple[int, float] | None:
        """(first step of the later rate, its start on the run's clock), when the rate changed mid-run."""
        if self.early_step_s is None or self.change_s is None or self.change_s <= self.steady_s:
            return None
        change = self.progress(self.change_s)
        s0 = self._completed(self.resume_step, self.steady_s, self.early_step_s, change)
        if s0 == self.resume_step:
            return s0, self.steady_s
        t0 = self._end(self.resume_step, self.steady_s, self.early_step_s, s0)
        if s0 % self.every == 0:
            t0 += self.stall_s
        return s0, t0

    @cached_property
    def split(self) -> tuple[int, float] | None:
        """(first step of the later rate, its start offset), when the rate changed mid-run."""
        split = self._split
        return None if split is None else (split[0], self.wall(split[1]))

    def rate_at(self, step: int) -> float:
        """Seconds per step around global ``step``, as scheduled (a shared stretch aside)."""
        split = self._split
        if split is not None and self.early_step_s is not None and step <= split[0]:
            return self.early_step_s
        return self.step_s

    def _step_end(self, step: int) -> float:
        """When global ``step`` completes on the run's clock."""
        split = self._split
        if split is None:
            return self._end(self.resume_step, self.steady_s, self.step_s, step)
        if step <= split[0]:
            return self._end(self.resume_step, self.steady_s, self.early_step_s or self.step_s, step)
        return self._end(split[0], split[1], self.step_s, step)

    def step_end(self, step: int) -> float:
        """Offset at which global ``step`` (> resume_step) completes."""
        return self.wall(self._step_end(step))

    def completed_at(self, offset: float) -> int:
        """The last global step completed at ``offset``."""
        known = self._completed_by_offset.get(offset)
        if known is None:
            known = self._completed_by_offset[offset] = self._completed_at(offset)
        return known

    def _completed_at(self, offset: float) -> int:
        if self.hang_s is not None:
            offset = min(offset, self.hang_s)
        offset = self.progress(offset)
        split = self._split
        if split is None:
            return self._completed(self.resume_step, self.steady_s, self.step_s, offset)
        if offset < split[1]:
            return min(split[0], self._completed(self.resume_step, self.steady_s, self.early_step_s or self.step_s,
                                                 offset))
        return self._completed(split[0], split[1], self.step_s, offset)

    def saving_at(self, offset: float) -> int | None:
        """The step being saved at ``offset``, if a checkpoint save is in progress."""
        if offset < self.steady_s or (self.hang_s is not None and offset >= self.hang_s):
            return None
        step = self.completed_at(offset)
        if step > self.resume_step and step % self.every == 0 \
                and self.progress(offset) < self._step_end(step) + self.stall_s:
            return step
        return None

    def into_step(self, offset: float) -> float:
        """Seconds of the run's own clock since the step in progress at ``offset`` began (a step the
        benchmark slowed spends each of its parts the slowdown times as long on the wall clock)."""
        step = self.completed_at(offset)
        begin = self.steady_s if step == self.resume_step else self._step_end(step)
        if step > self.resume_step and step % self.every == 0:
            begin += self.stall_s
        return max(0.0, self.progress(offset) - begin)

    def saves_between(self, start: float, end: float) -> list[tuple[int, float, float]]:
        """Checkpoint saves (step, start offset, end offset) that begin in [start, end)."""
        saves: list[tuple[int, float, float]] = []
        step = (self.resume_step // self.every + 1) * self.every
        while len(saves) <= 10_000:
            mark = self._step_end(step)
            begin = self.wall(mark)
            if begin >= end or (self.hang_s is not None and begin >= self.hang_s):
                break
            if begin >= start:
                saves.append((step, begin, self.wall(mark + self.stall_s)))
            step += self.every
        return saves


def start_up(run: TrainingRun) -> tuple[float, float, float]:
    """When the run's latest (re)start begins initialising (processes up), has its model loaded (waits
    for its first batch), and starts its first step (offsets, s)."""
    init = run.started_s + run.alloc_s
    first = init + run.init_s
    return init, first, first + run.first_batch_s


def schedule(cluster: Cluster, prof: StepProfile | None = None) -> Schedule:
    """Place the run on the clock: ``run.start_step`` is about where it stands at offset 0 (kept for the
    rest of a command that changes nothing: :mod:`emulator.cluster.memo`)."""
    run = cluster.training
    if run is None:
        raise ValueError("no training run in this cluster")
    steady = prof or profile(cluster)
    return memo.kept("timeline.schedule", (run, steady), None, lambda: _schedule(run, steady))


def _schedule(run: TrainingRun, prof: StepProfile) -> Schedule:
    init, first, steady = start_up(run)
    every = max(1, run.checkpoint_every)
    step_s = prof.step_s if math.isfinite(prof.step_s) else 1e9
    early = run.baseline_step_s if run.degraded_s is not None else None
    probe = Schedule(started_s=run.started_s, init_s=init, first_batch_s=first, steady_s=steady, resume_step=0,
                     step_s=step_s, every=every, stall_s=prof.checkpoint_stall_s, hang_s=None,
                     early_step_s=early, change_s=run.degraded_s)
    done = probe.completed_at(0.0)
    resume = max(0, (run.start_step - done) // every * every)
    # A benchmark beside the ranks slows the steps only once they run.
    slowed = tuple((max(begin, steady), end, f) for begin, end, f in run.slowed() if end > steady)
    return replace(probe, resume_step=resume, hang_s=run.hang_s, slowed=slowed)


def hang_fired_s(cluster: Cluster) -> float | None:
    """When the NCCL watchdog fires for a hang (offset s), or None.

    For a rank whose process hit a CUDA error, its own watchdog fires at once; otherwise the
    waiting ranks' watchdogs fire after the collective timeout.
    """
    run = cluster.training
    if run is None or run.hang_s is None:
        return None
    if run.hang_in == "crash":
        return run.hang_s + CRASH_DETECT_S
    return run.hang_s + NCCL_TIMEOUT_MS / 1000.0 + 0.06


def teardown_s(cluster: Cluster) -> float | None:
    """When the launcher has torn the run down after a watchdog timeout (offset s), or None."""
    fired = hang_fired_s(cluster)
    if fired is None:
        return None
    crashed = cluster.training is not None and cluster.training.hang_in == "crash"
    return fired + (CRASH_TEARDOWN_S if crashed else TEARDOWN_S)


def job_end_s(cluster: Cluster) -> float | None:
    """When the run's Slurm job ended (offset s), or None while it is pending or running."""
    run = cluster.training
    job = cluster.slurm.job(run.job_id) if run is not None else None
    if job is None or job.state in ("PENDING", "RUNNING") or job.end_s is None:
        return None
    return job.end_s


def failed_at(cluster: Cluster) -> float | None:
    """When the run's processes were gone (offset s), or None while they run.

    The launcher tears the run down once the NCCL watchdog fires for a
    stopped rank; Slurm ends the job sooner when a node fails (after
    SlurmdTimeout) or someone cancels it. Every tool that shows the ranks
    (logs, nvidia-smi, ps, py-spy) stops showing them at this instant.
    """
    ends = [t for t in (teardown_s(cluster), job_end_s(cluster)) if t is not None]
    return min(ends) if ends else None


def hung_node(cluster: Cluster) -> str:
    """The node of the rank that stopped ("" when none did)."""
    run = cluster.training
    if run is None or run.hang_rank is None or run.hang_rank >= len(run.ranks):
        return ""
    return run.ranks[run.hang_rank].node


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
