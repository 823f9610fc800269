"""Free-text findings read against a lab's vocabulary: ``cause="fabric manager not running"`` → ``fabricmanager-stopped``.

A lab lists, for each cause (or each value of another vocabulary field),
phrases a learner or an operator would use for it. Typed text and phrases
are both reduced to their meaningful words: lower case, split at anything
that is not a letter or digit (``nv-fabricmanager`` is ``nv fabricmanager``)
and between a name and the number written on it (``ost0003`` is ``ost 0003``),
grammatical words dropped (``the``, ``is``, ``on``...), negations spelled one
way (``isn't``, ``no``, ``never`` → ``not``), plurals and ``-ed``/``-ing``
endings taken off (``links`` → ``link``, ``stopped`` → ``stop``). Word order
does not matter, and two or three neighbouring words also count as one word
written together (``fabric manager`` meets ``fabricmanager``, ``nv link``
meets ``nvlink``).

A phrase matches when all its words occur in the text; a value scores the
number of typed words its matching phrases cover, and the best score wins.
Words no phrase knows are ignored (``node07``, ``bad``), so a sentence in a
learner's own words still finds its cause. A text no phrase matches, or
one two values match equally well, resolves to nothing: the caller says so.

A lab may also name umbrella phrases (:class:`Umbrella`): words that fit
several values at once (``numa misbinding`` for a CPU or a memory binding).
They name no value; a text that resolves to none but covers an umbrella
phrase is too broad rather than unknown, and :meth:`Vocabulary.too_broad`
gives the question the lab asks back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Grammatical and filler words that never decide a cause.
STOPWORDS = frozenset({
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "it", "its", "this", "that",
    "these", "those", "there", "here", "of", "on", "in", "at", "to", "for", "by", "with", "and", "or", "as",
    "into", "onto", "from", "than", "then", "so", "because", "due", "which", "who", "whom", "what", "when",
    "where", "while", "has", "have", "had", "having", "do", "does", "did", "get", "gets", "got", "very", "too",
    "just", "only", "also", "some", "any", "my", "our", "your", "their", "his", "her", "them", "they", "we",
    "me", "s", "t", "can", "could", "would", "should", "will", "seems", "seem", "looks", "look", "appear",
    "appears",
})

#: Ways of saying "not", all read as ``not``.
NEGATIONS = frozenset({"not", "no", "isn", "wasn", "aren", "weren", "doesn", "didn", "don", "never", "cannot",
                       "won", "hasn", "haven", "without"})

#: Neighbouring words that may also be read as one word written together.
JOINED = 3


def _stem(word: str) -> str:
    """``links`` → ``link``, ``gpus`` → ``gpu`` (``bus`` stays), ``stopped`` → ``stop``, ``running`` → ``run``,
    ``degraded``/``degrade`` → ``degrad``."""
    if word.isdecimal():
        return word
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and (not word.endswith(("ss", "us", "is")) or word.endswith("pus")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


#: A name with a number written on: ``ost0003`` reads as ``ost`` and ``0003`` (joined back as neighbours).
_NAME_NUMBER = re.compile(r"([a-z]{2,})(\d+)")


def words(text: str) -> tuple[str, ...]:
    """The meaningful words of ``text``, in order, each in one spelling."""
    out = []
    for token in re.findall(r"[a-z0-9]+", text.lower()):
        split = _NAME_NUMBER.fullmatch(token)
        for raw in split.groups() if split else (token,):
            if raw in NEGATIONS:
                out.append("not")
            elif raw not in STOPWORDS:
                out.append(_stem(raw))
    return tuple(out)


def _units(typed: tuple[str, ...]) -> dict[str, set[int]]:
    """Each typed word, and each run of up to :data:`JOINED` neighbours written together, with the positions it covers."""
    units: dict[str, set[int]] = {}
    for i in range(len(typed)):
        for n in range(1, JOINED + 1):
            if i + n <= len(typed):
                units.setdefault("".join(typed[i:i + n]), set()).update(range(i, i + n))
    return units


def _covers(phrase: tuple[str, ...], units: dict[str, set[int]]) -> set[int]:
    """The typed positions ``phrase`` covers when all its words occur (word by word, or written together); else none."""
    best: set[int] = set()
    for form in (phrase, ("".join(phrase),)):
        if all(w in units for w in form):
            covered = set().union(*(units[w] for w in form))
            if len(covered) > len(best):
                best = covered
    return best


@dataclass(frozen=True)
class Umbrella:
    """Phrases that fit several values of a field at once, and what to ask a learner who typed one."""

    phrases: tuple[str, ...]
    #: The values the phrases fit (at least two; never shown to the learner).
    spans: tuple[str, ...]
    #: The question back, naming no value: ``say what is bound wrong``.
    ask: str


@dataclass(frozen=True)
class Vocabulary:
    """The values of one field and the phrases that name each (its own spelling included)."""

    phrases: dict[str, tuple[tuple[str, ...], ...]]
    #: Umbrella phrases: their words, and the question each asks back.
    umbrellas: tuple[tuple[tuple[str, ...], str], ...] = ()

    @classmethod
    def of(cls, table: dict[str, list[str]], umbrellas: tuple[Umbrella, ...] = ()) -> Vocabulary:
        """From a lab's ``value → [phrases]`` table; each value also names itself."""
        return cls({value: tuple(words(p) for p in [value, *spellings]) for value, spellings in table.items()},
                   tuple((words(p), u.ask) for u in umbrellas for p in u.phrases))

    def too_broad(self, text: str) -> str:
        """The question an umbrella phrase of ``text`` asks back ("" when it covers none); for a text
        :meth:`resolve` reads as no value."""
        units = _units(words(text))
        return next((ask for phrase, ask in self.umbrellas if phrase and _covers(phrase, units)), "")

    def resolve(self, text: str) -> list[str]:
        """The values ``text`` names best: one when it is clear, none when no phrase matches, several when tied."""
        units = _units(words(text))
        scores: dict[str, int] = {}
        for value, phrases in self.phrases.items():
            covered: set[int] = set()
            for phrase in phrases:
                if phrase:
                    covered |= _covers(phrase, units)
            if covered:
                scores[value] = len(covered)
        if not scores:
            return []
        top = max(scores.values())
        return [value for value, score in scores.items() if score == top]
