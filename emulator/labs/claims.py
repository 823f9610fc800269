"""What a lab's brief may claim about its job, and what each claim word means in numbers and on the clock.

A lab declares the symptom its brief claims as ``[[symptoms]]`` (a kind of
artefact and a claim word) and the events it promises as ``[[promises]]``
(:mod:`emulator.labs.parse`). The words mean the same in every lab: a claim
is a range of the faulted/healthy ratio of what the job's own artefact shows
(:data:`RATIO_CLAIMS`), a GPU-utilization pattern (:data:`UTIL_CLAIMS`) or a
Slurm job state; a time phrase is a window on the simulated clock
(:func:`window`). ``tests/labs/test_symptoms.py`` and
``tests/labs/test_narrative.py`` read the artefacts through the shell and
hold each lab to its words.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

#: Artefact kinds whose claim is a ratio, faulted over healthy twin, and what each reads:
#: step-time (train.log step_time), throughput (train.log tokens/s), busbw (nccl-tests,
#: the largest size), progress (train.log: steps completed in the last hour).
RATIO_KINDS = ("step-time", "throughput", "busbw", "progress")
#: Claim word -> (lowest, highest) ratio it allows. "slower" and "lower" are past run-to-run
#: noise (a step time jitters by about 1%); "far" is a third or more.
RATIO_CLAIMS: dict[str, tuple[float, float]] = {
    "slower": (1.05, math.inf), "far-slower": (1.5, math.inf),
    "lower": (0.0, 0.95), "far-lower": (0.0, 0.67),
    "somewhat-higher": (1.05, 1.5), "unchanged": (0.97, 1.03),
}
#: GPU-utilization claims over 1-second samples: "dips" (some sample at or below
#: DIP_PCT, while the healthy twin never leaves STEADY_PCT), "steady" (every sample at
#: or above STEADY_PCT, faulted and healthy).
UTIL_CLAIMS = ("dips", "steady")
DIP_PCT, STEADY_PCT = 50, 95
#: Slurm job states a brief may claim for its job.
JOB_STATES = ("RUNNING", "PENDING", "FAILED", "NODE_FAIL", "CANCELLED", "TIMEOUT", "COMPLETED")
#: Saves that pause training: "long" is a pause of at least one step time on every save.
PAUSE_CLAIMS = ("long",)
KINDS: dict[str, tuple[str, ...]] = {
    **{kind: tuple(RATIO_CLAIMS) for kind in RATIO_KINDS},
    "gpu-util": UTIL_CLAIMS, "job-state": JOB_STATES, "save-pause": PAUSE_CLAIMS,
}

#: Time phrases a brief may use, each a window on the clock; a brief that uses one
#: must declare a promise whose event falls in it.
TIME_PHRASES = ("a few minutes ago", "this morning", "this afternoon", "this evening", "last night",
                "overnight", "yesterday", "since \\d\\d:\\d\\d")
_TIME_TEXT = re.compile(r"\b(" + "|".join(TIME_PHRASES) + r")\b", re.I)


def time_phrases(text: str) -> list[str]:
    """The time phrases ``text`` uses, lower case, in order."""
    return [m.group(1).lower() for m in _TIME_TEXT.finditer(" ".join(text.split()))]


def window(phrase: str, now: datetime) -> tuple[datetime, datetime]:
    """The span of the clock ``phrase`` names, seen from ``now`` (both ends inclusive)."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    hours = {
        "this morning": (5, 12), "this afternoon": (12, 18), "this evening": (18, 24),
        "last night": (-4, 5), "overnight": (-4, 7), "yesterday": (-24, 0),
    }
    phrase = phrase.lower().strip()
    if phrase == "a few minutes ago":
        return now - timedelta(minutes=30), now
    m = re.fullmatch(r"since (\d\d):(\d\d)", phrase)
    if m:
        at = day.replace(hour=int(m.group(1)), minute=int(m.group(2)))
        return at, at + timedelta(seconds=59)
    lo, hi = hours[phrase]
    return day + timedelta(hours=lo), min(now, day + timedelta(hours=hi))


_STAMPS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%a %b %d %H:%M:%S %Y", "%b %d %H:%M:%S", "%H:%M:%S")


def read_stamp(text: str, now: datetime) -> datetime | None:
    """A timestamp as a log prints it (ISO, ``dmesg -T``, syslog, a bare time of today), in the clock's zone."""
    text = " ".join(text.replace("Z", "").split(",")[0].split())
    for form in _STAMPS:
        try:
            at = datetime.strptime(text, form)
        except ValueError:
            continue
        if "%Y" not in form:
            at = at.replace(year=now.year)
        if "%d" not in form:
            at = at.replace(month=now.month, day=now.day)
        return at.replace(tzinfo=now.tzinfo)
    return None
