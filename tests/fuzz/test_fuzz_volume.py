"""Fuzzing at volume (see :mod:`tests.fuzz.volume`): no traceback, hang, silent truncation, status out of
range or memory past 1 GB, over the issue's reproducers, the catastrophic-pattern corpus and generated lines.

A normal run takes a seeded slice of 1,500 lines; ``FUZZ_LONG=1`` runs 100,000::

    FUZZ_LONG=1 .venv/bin/pytest tests/fuzz/test_fuzz_volume.py -q -s
"""

from __future__ import annotations

import json
import os

from emulator.session import Session
from tests.fuzz import volume

LONG = os.environ.get("FUZZ_LONG") == "1"
LINES = 100_000 if LONG else 1_500


def test_generated_lines_reproducers_and_patterns_find_nothing() -> None:
    report = volume.fuzz(LINES, seed=0)
    print(json.dumps(report.as_dict(), indent=1))
    assert report.lines >= LINES + len(volume.REPRODUCERS)
    assert report.failures() == {}, json.dumps(report.examples, indent=1)


def test_the_generator_covers_every_command_name() -> None:
    generator = volume.Generator(0)
    seen = "\n".join(generator.line() for _ in range(LINES))
    missing = [name for name in volume.NAMES if name not in seen]
    assert missing == []


def test_the_judge_finds_what_it_looks_for() -> None:
    """Each kind of finding is detected (a check that cannot fail proves nothing)."""
    report = volume.Report()
    session = Session()
    volume.judge(report, session, "echo 'Traceback (most recent call last)'")
    volume.judge(report, session, f"seq {volume.limits.SEQ_LIMIT * 2} | head -n {volume.limits.SEQ_LIMIT}")
    volume.judge(report, session, "printf '%99999s\\n' {1..15}")
    assert report.counts == {"traceback": 1, "hang": 0, "big": 1, "silent": 0, "status": 0, "memory": 0}
    volume.judge(report, session, "seq 200000 | head -n 100000")
    assert report.counts["silent"] == 0  # the number typed says how many lines were asked for
    volume.judge(report, session, "seq 200000 | head -n 99999 | nl | tail -n 1 >/dev/null; seq 100000 | cat")
    assert report.counts["silent"] == 0
    volume.judge(report, session, "for i in $(seq 5000); do echo $i; echo $i; done")
    assert report.counts["silent"] == 1
