"""Reading a lab's claimed symptoms and promised events from the job's own artefacts, typed through the shell.

:func:`problems` compares a session (the faulted lab) with another (its
healthy twin) for every ``[[symptoms]]`` entry of the lab, and says what
does not hold; :func:`promise_problems` does the same for ``[[promises]]``.
The claim words mean what :mod:`emulator.labs.claims` says, in every lab;
step times and throughput must also agree with the step model
(:func:`emulator.cluster.steps.profile`) within :data:`MODEL_TOLERANCE`, so
the log, not a per-lab number, carries the physics.
"""

from __future__ import annotations

import math
import re
import statistics
from datetime import timedelta

from emulator import labs
from emulator.cluster.steps import previous_run, profile, profile_of
from emulator.labs import claims
from emulator.session import Session

TRAIN_LOG = "/lustre/jobs/llm-pretrain/train.log"
#: How far the log's ratio may stray from the model's (the log's per-step jitter).
MODEL_TOLERANCE = 0.05
#: The span over which "progress" counts completed steps.
PROGRESS_WINDOW = timedelta(hours=1)
_STEP_LINE = re.compile(r"step_time ([\d.]+)s \| data_wait [\d.]+s \| tokens/s ([\d,]+)")
_STAMPED_STEP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+ INFO \[train\.py:\d+\] step (\d+) ", re.M)
_PAUSE = re.compile(r"saved checkpoint step \d+ in ([\d.]+)s .*training paused")
_NCCL_ROW = re.compile(r"^\s+(\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+\S+\s+\S+\s+([\d.]+)\s", re.M)
_DMON_ROW = re.compile(r"^\s+\d+\s+(\d+)\s+\d+\s", re.M)


def typed(session: Session, lines: list[str], truth: dict[str, str]) -> str:
    """The output of each line, typed with the truth filled in."""
    return "\n".join(session.execute(labs.substitute(line, truth))[0] for line in lines)


def _log_figures(session: Session, log: str = TRAIN_LOG) -> tuple[float, float]:
    """Median step time and tokens/s of the last ten step lines of a training log."""
    text, _ = session.execute(f"grep 'train.py:212' {log} | tail -n 10")
    rows = _STEP_LINE.findall(text)[-10:]
    if not rows:
        return math.nan, math.nan
    return (statistics.median(float(s) for s, _ in rows),
            statistics.median(float(t.replace(",", "")) for _, t in rows))


def _progress(session: Session) -> float:
    """Steps the job completed in the hour before now, from the timestamps of train.log."""
    now = session.cluster.clock.now()
    text, _ = session.execute(f"tail -n 2000 {TRAIN_LOG}")
    done = [(claims.read_stamp(at, now), int(step)) for at, step in _STAMPED_STEP.findall(text)]
    before = [step for at, step in done if at is not None and at <= now - PROGRESS_WINDOW]
    latest = [step for at, step in done if at is not None and at <= now]
    if not latest:
        return 0.0
    return float(latest[-1] - (before[-1] if before else done[0][1]))


def _busbw(text: str) -> float:
    rows = _NCCL_ROW.findall(text)
    return float(max(rows, key=lambda r: int(r[0]))[1]) if rows else 0.0


def _model_step(session: Session, previous: bool = False) -> float:
    """The step model's step time of the run (or of the previous job's configuration)."""
    try:
        if previous:
            run = session.cluster.training
            before = previous_run(run) if run is not None else None
            return profile_of(session.cluster, before).step_s if before is not None else math.nan
        return profile(session.cluster).step_s
    except ValueError:
        return math.nan


def _ratio_problem(symptom: labs.Symptom, seen: float) -> str:
    lo, hi = claims.RATIO_CLAIMS[symptom.claim]
    if not lo <= seen <= hi:
        return f"{symptom.kind} {symptom.claim!r} ({symptom.says!r}): faulted/healthy is {seen:.3f}, not in [{lo}, {hi}]"
    return ""


def symptom_problem(symptom: labs.Symptom, faulted: Session, healthy: Session, truth: dict[str, str]) -> str:
    """What does not hold of ``symptom`` between the two sessions ("" when it holds)."""
    kind = symptom.kind
    if kind in ("step-time", "throughput"):
        previous = symptom.against == "previous"
        f_step, f_tok = _log_figures(faulted)
        h_step, h_tok = _log_figures(faulted, TRAIN_LOG + ".1") if previous else _log_figures(healthy)
        seen = f_step / h_step if kind == "step-time" else f_tok / h_tok
        if math.isnan(seen):
            return f"{kind}: the training logs show no step lines"
        model = _model_step(faulted) / (_model_step(faulted, True) if previous else _model_step(healthy))
        if kind == "throughput":
            model = 1 / model
        if math.isfinite(model) and abs(seen / model - 1) > MODEL_TOLERANCE:
            return f"{kind}: train.log ratio {seen:.3f} disagrees with the step model's {model:.3f}"
        return _ratio_problem(symptom, seen)
    if kind == "progress":
        f_steps, h_steps = _progress(faulted), _progress(healthy)
        if h_steps <= 0:
            return "progress: the healthy twin's train.log shows no steps in the last hour"
        return _ratio_problem(symptom, f_steps / h_steps)
    if kind == "busbw":
        f_bw, h_bw = _busbw(typed(faulted, symptom.run, truth)), _busbw(typed(healthy, symptom.run, truth))
        if h_bw <= 0:
            return f"busbw: the healthy twin's run shows no busbw ({symptom.run})"
        return _ratio_problem(symptom, f_bw / h_bw)
    if kind == "gpu-util":
        f_util = [int(u) for u in _DMON_ROW.findall(typed(faulted, symptom.run, truth))]
        h_util = [int(u) for u in _DMON_ROW.findall(typed(healthy, symptom.run, truth))]
        if not f_util or not h_util:
            return f"gpu-util: no dmon samples from {symptom.run}"
        if min(h_util) < claims.STEADY_PCT:
            return f"gpu-util: the healthy twin dips to {min(h_util)}%"
        if symptom.claim == "dips" and min(f_util) > claims.DIP_PCT:
            return f"gpu-util 'dips' ({symptom.says!r}): the lowest 1-second sample is {min(f_util)}%"
        if symptom.claim == "steady" and min(f_util) < claims.STEADY_PCT:
            return f"gpu-util 'steady': a sample reads {min(f_util)}%"
        return ""
    if kind == "job-state":
        job = faulted.cluster.training.job_id if faulted.cluster.training else 0
        state = faulted.execute(f"sacct -j {job} -X -n -o State")[0].split()
        if symptom.claim not in state:
            return f"job-state: sacct shows {state}, the brief claims {symptom.claim} ({symptom.says!r})"
        return ""
    # save-pause: every save in the log paused training at least one step time, and as long as the brief says.
    saved = faulted.execute(f"grep 'saved checkpoint' {TRAIN_LOG}")[0]
    pauses = [float(p) for p in _PAUSE.findall(saved)]
    step, _ = _log_figures(faulted)
    if not pauses or min(pauses) < step:
        return f"save-pause 'long' ({symptom.says!r}): pauses {pauses} against a {step:.2f} s step"
    if problem := _pause_figures(symptom.says, pauses, step, saved):
        return f"save-pause ({symptom.says!r}): {problem}"
    if _PAUSE.search(healthy.execute(f"grep 'saved checkpoint' {TRAIN_LOG}")[0]):
        return "save-pause: the healthy twin's saves pause training too"
    return ""


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_SAVED_AT = re.compile(r"^\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d),(\d{3}) INFO .*saved checkpoint", re.M)


def _pause_figures(says: str, pauses: list[float], step: float, saved: str) -> str:
    """What the brief's figures for a save's pause claim and the log does not show ("" when all hold):
    "about N s" (each pause within 20 %), "longer than N steps take", "a few per cent of the run's time"
    (the pause's share of the time between saves, 1-5 %)."""
    if (m := re.search(r"about (\d+) s\b", says)) and any(abs(p / int(m[1]) - 1) > 0.2 for p in pauses):
        return f"pauses {pauses} are not about {m[1]} s"
    if (m := re.search(r"longer than (\w+) steps? take", says)) and min(pauses) <= _WORDS.get(m[1], 0) * step:
        return f"pauses {pauses} are not longer than {m[1]} steps of {step:.2f} s"
    if "a few per cent" in says:
        at = [3600 * int(h) + 60 * int(mi) + int(sec) + int(ms) / 1000 for h, mi, sec, ms in _SAVED_AT.findall(saved)]
        gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
        share = [p / g for p, g in zip(pauses[1:], gaps, strict=False)]
        if not share or not all(0.01 <= x <= 0.05 for x in share):
            return f"the pauses' share of the time between saves is {share}, not a few per cent"
    return ""


def problems(lab: labs.Lab, faulted: Session, healthy: Session) -> list[str]:
    """Every symptom of ``lab`` that ``faulted`` does not show against ``healthy``."""
    truth = faulted.cluster.truth()
    found = [symptom_problem(s, faulted, healthy, truth) for s in lab.symptoms]
    return [p for p in found if p]


def promise_problems(lab: labs.Lab, session: Session, truth: dict[str, str]) -> list[str]:
    """Every promised event ``session`` does not show, or shows outside the brief's time window."""
    now = session.cluster.clock.at(0.0)
    out = []
    for promise in lab.promises:
        text = typed(session, promise.run, truth)
        m = re.search(labs.substitute_pattern(promise.pattern, truth), text, re.M)
        if m is None:
            out.append(f"{promise.says!r}: no /{promise.pattern}/ in the output of {promise.run}")
            continue
        if promise.when:
            at = claims.read_stamp(m.group("at"), now)
            lo, hi = claims.window(promise.when, now)
            if at is None or not lo <= at <= hi:
                out.append(f"{promise.says!r}: {m.group('at')} is not {promise.when!r} (from {lo:%d %H:%M} "
                           f"to {hi:%d %H:%M}, the clock reads {now:%d %H:%M})")
    return out
