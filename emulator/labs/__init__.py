"""Labs: the lab files loaded and validated, each lab's cluster built for a seed, a learner's finding judged.

A lab is one TOML file in ``labs/`` (shipped in the wheel as
``emulator.labs_data``): ``parse`` validates its schema into the records of
``schema``, ``loader`` finds and caches the files, ``clusters`` builds a lab's
cluster and picks its fault parameters per seed, ``findings`` judges a finding
against the model's truth (``phrases`` reads a free-text cause against the
lab's phrases), ``progress`` counts a learner's hints and attempts, ``codes`` writes a
solve as a completion code and reads one back,
``evidence`` sets what the learner ran against the reference procedure, ``objectives`` ticks its
steps from what the learner's output showed, ``placeholders`` fills ``<field>`` names from the truth,
and ``shift`` builds an on-call shift of several labs' incidents. This package imports
only the model (``emulator.cluster``) and ``emulator.errors``; the names below
are its public face, imported by the shell, the session, the lab tools and the
MkDocs hooks.
"""

from __future__ import annotations

from emulator.labs.clusters import build, cluster_for, fault_params, lures, spec_for
from emulator.labs.codes import CodeError, Completion, build_id, completion_code, student_seed
from emulator.labs.evidence import evidence_report, missing_runs, tool_runs
from emulator.labs.findings import ALTERNATES, Part, Verdict, canonical_cause, judge, normalise, unread
from emulator.labs.loader import SANDBOX, all_labs, get, known_labs, load_text, warm_next
from emulator.labs.objectives import EVIDENCE_SEARCHED, Objective, objectives, observe
from emulator.labs.parse import DIFFICULTIES, parse_lab
from emulator.labs.phrases import Umbrella, Vocabulary, words
from emulator.labs.placeholders import PLACEHOLDER, substitute, substitute_pattern
from emulator.labs.progress import ENUMERATION_LIMIT, Progress
from emulator.labs.schema import Advice, Check, Evidence, FaultSpec, Feedback, Lab, Promise, Step, Symptom
from emulator.labs.shift import SHIFT

__all__ = [
    "ALTERNATES",
    "DIFFICULTIES",
    "ENUMERATION_LIMIT",
    "EVIDENCE_SEARCHED",
    "PLACEHOLDER",
    "SANDBOX",
    "SHIFT",
    "Advice",
    "Check",
    "CodeError",
    "Completion",
    "Evidence",
    "FaultSpec",
    "Feedback",
    "Lab",
    "Objective",
    "Part",
    "Promise",
    "Progress",
    "Step",
    "Symptom",
    "Umbrella",
    "Verdict",
    "Vocabulary",
    "all_labs",
    "build",
    "build_id",
    "canonical_cause",
    "completion_code",
    "cluster_for",
    "evidence_report",
    "fault_params",
    "get",
    "judge",
    "known_labs",
    "load_text",
    "lures",
    "missing_runs",
    "normalise",
    "objectives",
    "observe",
    "parse_lab",
    "spec_for",
    "student_seed",
    "substitute",
    "substitute_pattern",
    "tool_runs",
    "unread",
    "warm_next",
    "words",
]
