"""Every lab's story agrees with the clock: its time words and promised events are in the artefacts.

A brief that names a time ("this morning", "last night", "since 08:10")
must declare the event it dates as a ``[[promises]]`` entry with that
``when``; each promised event (a restart, a watchdog line, a drain) must
show in the faulted lab's artefacts, typed through the shell, and the
timestamp it prints must fall in the window the words name on the
simulated clock (:func:`emulator.labs.claims.window`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from emulator import labs
from emulator.labs import claims
from emulator.session import Session
from tests.labs.symptoms import promise_problems

SEEDS = (0, 1, 2, 3)
LABS = [lab_id for lab_id in labs.known_labs() if not labs.get(lab_id).is_sandbox]


@pytest.mark.parametrize("lab_id", LABS)
def test_every_time_the_brief_names_is_dated_by_a_promised_event(lab_id):
    lab = labs.get(lab_id)
    dated = {p.when.lower() for p in lab.promises if p.when}
    for phrase in claims.time_phrases(lab.scenario):
        assert phrase in dated, f"{lab_id}: the brief says {phrase!r} but no promise dates it"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lab_id", LABS)
def test_every_promised_event_is_in_the_artefacts_at_the_time_the_brief_says(lab_id, seed):
    lab = labs.get(lab_id)
    session = Session(lab_id, seed)
    found = promise_problems(lab, session, session.cluster.truth())
    assert not found, "\n".join(found)


def test_a_time_the_clock_contradicts_is_reported():
    lab = labs.get("nccl-transport")
    late = [labs.Promise(p.says, p.run, p.pattern, "last night") for p in lab.promises]
    session = Session("nccl-transport", 0)
    found = promise_problems(replace(lab, promises=late), session, session.cluster.truth())
    assert found and "is not 'last night'" in found[0]


@pytest.mark.parametrize(("phrase", "now", "inside", "outside"), [
    ("this afternoon", "2026-03-11T09:00:00", None, "2026-03-11T08:00:00"),
    ("this morning", "2026-03-11T09:00:00", "2026-03-11T07:30:00", "2026-03-10T22:00:00"),
    ("last night", "2026-03-11T09:00:00", "2026-03-10T23:10:00", "2026-03-11T07:30:00"),
    ("since 08:10", "2026-03-11T09:00:00", "2026-03-11T08:10:30", "2026-03-11T08:20:00"),
])
def test_a_time_phrase_names_its_window_on_the_clock(phrase, now, inside, outside):
    clock = datetime.fromisoformat(now).replace(tzinfo=UTC)
    lo, hi = claims.window(phrase, clock)
    if inside:
        assert lo <= datetime.fromisoformat(inside).replace(tzinfo=UTC) <= hi
    else:
        assert hi < lo      # "this afternoon" seen at 09:00: an empty window
    assert not lo <= datetime.fromisoformat(outside).replace(tzinfo=UTC) <= hi
