"""A lab as data: its scenario, faults, reference procedure and the check a finding must pass.

Plain frozen records, built only by :func:`emulator.labs.parse.parse_lab`,
which documents each field as the lab files spell it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from emulator.labs.phrases import Umbrella, Vocabulary
from emulator.labs.placeholders import substitute_pattern


@dataclass(frozen=True)
class FaultSpec:
    #: One fault name, or several: the seed picks one.
    names: list[str]
    params: dict[str, Any]
    vary: dict[str, list[Any]]


@dataclass(frozen=True)
class Evidence:
    """A pattern the step's output shows under the fault; ``when`` limits it to one variant."""

    pattern: str
    when: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    title: str
    run: list[str]
    look_for: str
    record: str
    evidence: list[Evidence]

    def expected(self, truth: dict[str, str]) -> list[str]:
        """The patterns this step must show for this truth, with its values filled in."""
        return [substitute_pattern(e.pattern, truth) for e in self.evidence
                if all(truth.get(k) == v for k, v in e.when.items())]


@dataclass(frozen=True)
class Symptom:
    """What the brief claims the job shows: a kind of artefact and a claim word
    (:mod:`emulator.labs.claims`); ``run`` are the command lines that show it, when
    the kind has no fixed artefact (an nccl-tests run, a telemetry sample)."""

    kind: str
    claim: str
    says: str
    run: list[str] = field(default_factory=list)
    #: What the faulted run is compared with: its "healthy" twin, or the "previous" job (train.log.1).
    against: str = "healthy"


@dataclass(frozen=True)
class Promise:
    """An event the brief promises (``says``, words of the brief), which ``pattern`` finds in
    the output of ``run`` under the fault; ``when``, a time phrase of the brief, is the window
    the pattern's ``(?P<at>...)`` timestamp must fall in."""

    says: str
    run: list[str]
    pattern: str
    when: str = ""


@dataclass(frozen=True)
class Feedback:
    when: dict[str, str]
    say: str


@dataclass(frozen=True)
class Advice:
    """What to say when a field is wrong. ``say`` takes the fields in ``needs`` as right; when one of
    them is wrong too, ``otherwise`` is said instead (or nothing)."""

    say: str
    needs: list[str] = field(default_factory=list)
    otherwise: str = ""


@dataclass(frozen=True)
class Check:
    fields: list[str]
    #: Cause word → phrases that name it (read by :mod:`emulator.labs.phrases`).
    causes: dict[str, list[str]]
    wrong: dict[str, Advice]
    feedback: list[Feedback]
    #: Other fields' vocabularies: field → canonical value → accepted spellings.
    synonyms: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    #: Per vocabulary field: umbrella phrases that fit several of its values, refused as too broad.
    broad: dict[str, list[Umbrella]] = field(default_factory=dict)

    @cached_property
    def vocabularies(self) -> dict[str, Vocabulary]:
        """Each vocabulary field (the cause, and every field of ``synonyms``) read as a :class:`Vocabulary`."""
        tables = dict(self.synonyms)
        if self.causes:
            tables["cause"] = self.causes
        return {name: Vocabulary.of(table, tuple(self.broad.get(name, ()))) for name, table in tables.items()}


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    difficulty: str
    pages: list[str]
    scenario: str
    cluster: dict[str, Any]
    faults: list[FaultSpec] = field(default_factory=list)
    goal: str = ""
    hints: list[str] = field(default_factory=list)
    solution: list[Step] = field(default_factory=list)
    check: Check | None = None
    symptoms: list[Symptom] = field(default_factory=list)
    promises: list[Promise] = field(default_factory=list)
    #: Benign-looking-bad conditions on healthy parts (:mod:`emulator.labs.decoys`).
    decoys: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def is_sandbox(self) -> bool:
        return not self.faults

    def submit_form(self) -> str:
        """``submit node=<node> port=<port> cause=<cause>``."""
        if self.check is None:
            return ""
        return "submit " + " ".join(f"{f}=<{f}>" for f in self.check.fields)
