"""Judging a learner's finding against the model's truth, field by field.

Values are compared in one spelling (``node07``, ``node7`` and
``node07.cluster.internal`` are one node); a GPU may also be named by bus
id, UUID or serial, a port by netdev, GUID or LID; causes and other fields
accept the synonyms the lab lists. A wrong field gets the lab's hint, and a
plausible wrong answer its feedback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.labs.schema import Check, Lab


def normalise(name: str, value: str) -> str:
    """One spelling per value: ``node07``/``node07.cluster.internal`` → ``node7``, ``GPU3`` → ``3``."""
    v = value.strip().lower()
    if name == "node" or name.endswith("_node"):
        v = v.split(".")[0]
        m = re.fullmatch(r"([a-z-]*?)(\d+)", v)
        if m:
            v = f"{m.group(1)}{int(m.group(2))}"
    elif name in ("gpu", "rank", "local_rank"):
        v = re.sub(r"^(gpu|rank)\s*", "", v)
        if v.isdecimal():
            v = str(int(v))
    elif name in ("port", "hca", "nic"):
        v = re.sub(r"[:/]1$", "", v)
    return v


@dataclass
class Verdict:
    """Whether the finding is right, the lines that say so field by field, and the fields it got wrong."""

    correct: bool
    lines: list[str]
    wrong_fields: list[str]


def canonical_cause(check: Check, word: str) -> str | None:
    w = word.strip().lower()
    for cause, synonyms in check.causes.items():
        if w == cause or w in (s.lower() for s in synonyms):
            return cause
    return None


def judge(lab: Lab, truth: dict[str, str], finding: dict[str, str]) -> Verdict:
    """Compare a finding with the model's truth, field by field."""
    assert lab.check is not None
    check = lab.check
    wrong: list[str] = []
    lines: list[str] = []
    given = dict(finding)
    for name in check.fields:
        value = given.get(name, "")
        if name == "cause":
            cause = canonical_cause(check, value)
            ok = cause is not None and cause == truth.get("cause", "").lower()
        else:
            ok = _canonical(check, name, value) == _canonical(check, name, str(truth.get(name, ""))) \
                or _names_same_thing(name, value, truth)
        if ok:
            lines.append(f"  {name}={value}: correct")
            continue
        wrong.append(name)
        hint = check.wrong.get(name, "")
        lines.append(f"  {name}={value}: not what the cluster shows" + (f". {hint}" if hint else ""))
    for fb in check.feedback:
        matched = all(_matches(check, k, given.get(k, ""), v) for k, v in fb.when.items())
        if matched and any(k in wrong for k in fb.when):
            lines.append(fb.say)
    return Verdict(not wrong, lines, wrong)


#: Other names of the same component a finding may use: a GPU by bus id, UUID or serial,
#: a port by netdev, GUID or LID.
ALTERNATES = {"gpu": ("bus_id", "uuid", "serial"), "port": ("netdev", "guid", "lid")}


def _names_same_thing(name: str, value: str, truth: dict[str, str]) -> bool:
    v = value.strip().lower()
    if str(truth.get(name, "")).lower() == "all":
        return False
    for key in ALTERNATES.get(name, ()):
        other = str(truth.get(key, "")).lower()
        if not other:
            continue
        if key == "bus_id":
            short = re.sub(r"^[0-9a-f]*:(?=[0-9a-f]{2}:)", "", other)
            if re.fullmatch(r"(?:[0-9a-f]{4,8}:)?" + re.escape(short), v):
                return True
        elif v == other or (key == "lid" and v in (str(int(other)), hex(int(other)))):
            return True
    return False


def _canonical(check: Check, name: str, value: str) -> str:
    v = normalise(name, value)
    for word, spellings in check.synonyms.get(name, {}).items():
        if v == word.lower() or v in (s.lower() for s in spellings):
            return word.lower()
    return v


def _matches(check: Check, name: str, value: str, expected: str) -> bool:
    if name == "cause":
        return (canonical_cause(check, value) or value.lower()) == expected.lower()
    return _canonical(check, name, value) == _canonical(check, name, expected)
