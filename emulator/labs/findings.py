"""Judging a learner's finding against the model's truth, field by field.

Values are compared in one spelling (``node07``, ``node7`` and
``node07.cluster.internal`` are one node); a GPU may also be named by bus
id, UUID or serial, a port by netdev, GUID or LID; the cause and other
vocabulary fields are free text, read against the phrases the lab lists
(:mod:`emulator.labs.phrases`). A wrong field gets the lab's advice (the
part of it that holds given the other fields' verdicts), and a plausible
wrong answer its feedback; :meth:`Verdict.lines` shows them, or only how
the text was read when the caller withholds which parts are wrong.
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


@dataclass(frozen=True)
class Part:
    """One field of a finding: what the learner typed, how it was read, and whether it matches."""

    name: str
    value: str
    #: The vocabulary value the text was read as ("" for a field without a vocabulary, or unread text).
    reading: str
    correct: bool

    def shown(self) -> str:
        """``port=mlx5_3``, ``cause="fabric manager down"`` (quoted when it has spaces)."""
        value = f'"{self.value}"' if any(c.isspace() for c in self.value) else self.value
        return f"{self.name}={value}"

    @property
    def reread(self) -> bool:
        """Whether the text was read as a vocabulary value spelled otherwise."""
        return bool(self.reading) and self.reading != self.value.strip().lower()


@dataclass
class Verdict:
    """A finding judged: each part, and what to say about the wrong ones."""

    parts: list[Part]
    #: Per wrong field: the lab's advice for it (the part of it that holds given the other fields).
    advice: dict[str, str]
    #: The lab's feedback for plausible wrong answers this finding gave.
    feedback: list[str]

    @property
    def correct(self) -> bool:
        return all(p.correct for p in self.parts)

    @property
    def wrong_fields(self) -> list[str]:
        return [p.name for p in self.parts if not p.correct]

    def lines(self, detailed: bool) -> list[str]:
        """What to show: field by field with advice and feedback (``detailed``), or only how the text was read.

        An indented line is one part of the finding; any other line is a paragraph to wrap.
        """
        if self.correct or detailed:
            lines = []
            for part in self.parts:
                read = f" (read as {part.reading})" if part.reread else ""
                verdict = "correct" if part.correct else "not what the cluster shows"
                advice = self.advice.get(part.name, "")
                lines.append(f"  {part.shown()}{read}: {verdict}" + (f". {advice}" if advice else ""))
            return lines + ([] if self.correct else self.feedback)
        return [f"  {part.shown()} was read as {part.reading}." for part in self.parts if part.reread]


#: How a refusal names a vocabulary field's values, where the field's own name reads badly.
NOUNS = {"why": "reason"}


def unread(check: Check, name: str, text: str) -> str:
    """Why ``text`` cannot be judged as a value of the vocabulary field ``name`` ("" when it reads as one).

    Words that fit several values equally, an umbrella phrase the lab marks too broad
    (with the lab's question back), or words that name no value at all; none names a value.
    """
    vocabulary = check.vocabularies.get(name)
    if vocabulary is None:
        return ""
    noun = NOUNS.get(name, name.replace("_", " "))
    found = vocabulary.resolve(text)
    if len(found) > 1:
        return f"names more than one {noun}; say which one you saw"
    if found:
        return ""
    ask = vocabulary.too_broad(text)
    if ask:
        return f"too broad here; {ask}"
    return f"not a {noun} this cluster can show; say what you saw"


def canonical_cause(check: Check, text: str) -> str | None:
    """The cause ``text`` names in this lab's words, or None (no cause, or more than one equally)."""
    return _read(check, "cause", text)


def _read(check: Check, name: str, text: str) -> str | None:
    vocabulary = check.vocabularies.get(name)
    if vocabulary is None:
        return None
    found = vocabulary.resolve(text)
    return found[0] if len(found) == 1 else None


def judge(lab: Lab, truth: dict[str, str], finding: dict[str, str]) -> Verdict:
    """Compare a finding with the model's truth, field by field."""
    assert lab.check is not None
    check = lab.check
    parts = []
    for name in check.fields:
        value = finding.get(name, "")
        reading = _read(check, name, value) or ""
        true = str(truth.get(name, ""))
        ok = (reading or normalise(name, value)) == (_read(check, name, true) or normalise(name, true)) \
            or (name != "cause" and _names_same_thing(name, value, truth))
        parts.append(Part(name, value, reading, ok))
    wrong = {p.name for p in parts if not p.correct}
    advice = {}
    for name in wrong:
        if name in check.wrong:
            tip = check.wrong[name]
            text = tip.otherwise if any(n in wrong for n in tip.needs) else tip.say
            if text:
                advice[name] = text
    feedback = [fb.say for fb in check.feedback
                if any(k in wrong for k in fb.when)
                and all(_matches(check, k, finding.get(k, ""), v) for k, v in fb.when.items())]
    return Verdict(parts, advice, feedback)


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


def _matches(check: Check, name: str, value: str, expected: str) -> bool:
    if name in check.vocabularies:
        return (_read(check, name, value) or value.strip().lower()) == expected.lower()
    return normalise(name, value) == normalise(name, expected)
