"""A lab file's schema, validated: :func:`parse_lab` turns parsed TOML into a :class:`Lab` or a :class:`LabError`.

A lab is one TOML file in ``labs/`` (shipped in the wheel as the package
``emulator.labs_data``; :mod:`emulator.labs.loader` reads them). Its fields,
all checked here:

``id``, ``title``, ``difficulty`` (introductory, intermediate, advanced),
``pages`` (site paths under ``docs/``), ``scenario`` (one paragraph),
``[cluster]`` (``nodes``, ``training_nodes``, ``other_jobs``, ``start`` and a
``[cluster.training]`` table of training-run overrides), then, for every lab
but the healthy sandbox:

``[[faults]]``
    ``name`` of a fault in :mod:`emulator.cluster.faults` (or a list of
    names, one picked per seed, each given the parameters it knows), fixed
    ``params``, and ``vary``: parameter → list of choices, one picked per
    seed (any N consecutive seeds cover N choices). Unknown faults and
    parameters are schema errors. Anything a lab leaves open the fault
    function chooses from the seed itself.
``goal``
    The question the learner answers.
``hints``
    A ladder of strings, from a nudge to a near-answer.
``[[solution]]``
    The reference procedure, in order: ``title``, ``run`` (command lines),
    ``look_for``, ``record``, and ``evidence`` (regular expressions the
    output of ``run`` must show under the fault and must not show on the
    healthy twin; the replay tests check both). An evidence item may be a
    table ``{cause = "link-rate", pattern = "..."}`` that holds only when the
    seed picked that cause (``when = {setting = "..."}`` for another field).
``[check]``
    ``fields`` the finding must state, each compared with the model's truth
    (:meth:`Cluster.truth`; a GPU may also be named by bus id, UUID or
    serial, a port by netdev, GUID or LID); ``uses``: other truth fields the
    procedure's placeholders name; ``causes``: canonical cause word →
    phrases that name it, against which the learner's free text is read
    (:mod:`emulator.labs.phrases`; wrong causes a learner may plausibly
    give belong here too, and are judged wrong rather than refused). Each
    phrase must name its own cause and no other. ``[check.synonyms.FIELD]``:
    the same for another field; ``[[check.broad]]``: umbrella phrases that
    fit several values of one field (``field``, default ``cause``), refused
    as too broad with the lab's question back rather than as unknown:
    ``phrases`` (each naming no value), ``spans`` (two or more values of the
    field) and ``ask`` (``say what is bound wrong``: words that name no
    value); ``[check.wrong]``: field → what to say
    when that field is wrong, as a string, or as a table ``{say = ...,
    needs = [fields], otherwise = ...}`` when the advice takes other fields
    as right (``The node is right; ...`` must list ``node`` in ``needs``);
    ``[[check.feedback]]``: ``when`` (a partial finding) → ``say``, for
    plausible wrong answers.

``[[symptoms]]``
    What the brief claims the job shows, read from the job's own artefacts
    against its healthy twin: ``kind`` (step-time, throughput, busbw,
    gpu-util, job-state, save-pause), ``claim`` (a word of
    :mod:`emulator.labs.claims`: slower, far-slower, lower, far-lower,
    unchanged, dips, steady, a job state, long), ``says`` (the brief's words
    for it, which the scenario must contain), for busbw and gpu-util
    ``run``: the command lines whose output shows it, and ``against``:
    ``previous`` to compare step time or throughput with the previous job's
    log (``train.log.1``) instead of the healthy twin.
``decoys``
    Names of benign-looking-bad conditions placed on healthy parts after
    the faults (:mod:`emulator.labs.decoys`); the replay tests prove the
    procedure tells each from the fault.
``[[promises]]``
    Each event the brief promises (a restart, a watchdog line, a drain):
    ``says`` (the brief's words), ``run`` and ``pattern`` (a regular
    expression their output must show under the fault); ``when``, a time
    phrase of the brief ("this morning", "since 08:10"), whose window on the
    clock the pattern's ``(?P<at>...)`` timestamp must fall in. Every time
    phrase of the scenario needs a promise.

Command lines and evidence may name truth values as ``<node>``, ``<port>``...
``solutions`` prints them as they are (the learner fills them in from an
earlier step); the replay tests substitute the state's truth.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from emulator.cluster.faults import catalog
from emulator.cluster.training import TrainingRun
from emulator.labs import claims
from emulator.labs.decoys import DECOYS
from emulator.labs.phrases import Umbrella, Vocabulary, words
from emulator.labs.placeholders import PLACEHOLDER
from emulator.labs.reader import TableReader
from emulator.labs.schema import Advice, Check, Evidence, FaultSpec, Feedback, Lab, Promise, Step, Symptom

DIFFICULTIES = ("introductory", "intermediate", "advanced")
_ID = re.compile(r"^[a-z][a-z0-9-]*$")
_CLUSTER_KEYS = {"nodes": int, "training_nodes": int, "other_jobs": int}


def _cluster(r: TableReader) -> dict[str, Any]:
    r.unknown({*_CLUSTER_KEYS, "start", "training"})
    out: dict[str, Any] = {}
    for key, kind in _CLUSTER_KEYS.items():
        if key in r.data:
            out[key] = r.get(key, kind, "an integer")
    if out.get("nodes", 8) < 1 or out.get("nodes", 8) > 1024:
        raise r.fail("nodes", "must be between 1 and 1024")
    if "start" in r.data:
        start = r.get("start", datetime, "a date-time with a time zone (2026-03-11T09:00:00Z)")
        if start.tzinfo is None:
            raise r.fail("start", "expected a date-time with a time zone (2026-03-11T09:00:00Z)")
        out["start"] = start
    if "training" in r.data:
        training = r.table("training")

        known = set(TrainingRun.__dataclass_fields__) - {"job_id", "name", "ranks"}
        for key in training.data:
            if key not in known:
                raise training.fail(key, "not a training setting")
        out["training"] = dict(training.data)
    return out


def _placeholders_ok(r: TableReader, key: str | int, text: str, names: set[str]) -> None:
    for name in PLACEHOLDER.findall(text):
        if name not in names:
            raise r.fail(key, f"<{name}> is not a field of check.fields or check.uses")


def _evidence(r: TableReader, index: int, names: set[str], causes: set[str]) -> Evidence:
    """One evidence item: a pattern string, or a table ``{cause = ..., pattern = ...}``
    (``when = {field = value}`` for a variant named by another truth field)."""
    when: dict[str, str] = {}
    if isinstance(r.data, str):
        pattern = r.data
        where = TableReader(r.source, {}, r.path.rsplit("[", 1)[0])
        key: str | int = index
    else:
        r.unknown({"pattern", "cause", "when"})
        pattern, cause = r.text("pattern"), r.text("cause", "")
        if cause and causes and cause not in causes:
            raise r.fail("cause", "not one of check.causes")
        table = r.table("when", {})
        for k in table.data:
            when[k] = table.text(k)
        if cause:
            when["cause"] = cause
        where, key = r, "pattern"
    _placeholders_ok(where, key, pattern, names)
    try:
        re.compile(PLACEHOLDER.sub("x", pattern))
    except re.error as exc:
        raise where.fail(key, f"bad regular expression: {exc}") from None
    return Evidence(pattern, when)


def parse_lab(data: dict[str, Any], source: str) -> Lab:
    """Validate one parsed lab file; raise :class:`LabError` naming file, field and problem."""
    r = TableReader(source, data)
    r.unknown({"id", "title", "difficulty", "pages", "scenario", "cluster", "faults", "goal", "hints",
               "solution", "check", "symptoms", "promises", "decoys"})
    lab_id = r.text("id")
    if not _ID.match(lab_id):
        raise r.fail("id", "expected lowercase words joined by '-'")
    stem = Path(source).stem
    if stem != lab_id:
        raise r.fail("id", f"must match the file name ({stem})")
    difficulty = r.text("difficulty")
    if difficulty not in DIFFICULTIES:
        raise r.fail("difficulty", f"expected one of {', '.join(DIFFICULTIES)}")
    pages = r.strings("pages")
    for i, page in enumerate(pages):
        if not page.endswith(".md") or page.startswith("/") or ".." in page:
            raise TableReader(source, {}, "pages").fail(i, "expected a site path such as guides/data-loading.md")
    cluster = _cluster(r.table("cluster", {}))
    faults = []
    for f in r.tables("faults"):
        f.unknown({"name", "params", "vary"})
        vary = f.table("vary", {})
        for key, options in vary.data.items():
            if not isinstance(options, list) or not options:
                raise vary.fail(key, "expected a non-empty list of choices")
        if isinstance(f.data.get("name"), list):
            names = f.strings("name")
        else:
            names = [f.text("name")]
        known_faults = catalog()
        for name in names:
            if name not in known_faults:
                raise f.fail("name", f"unknown fault {name!r}")
        params = f.table("params", {})
        accepted = {key for name in names for key in known_faults[name].params}
        for table in (params, vary):
            for key in table.data:
                if key not in accepted:
                    raise table.fail(key, f"not a parameter of {' or '.join(names)}")
        faults.append(FaultSpec(names, dict(params.data), dict(vary.data)))
    base: dict[str, Any] = dict(id=lab_id, title=r.text("title"), difficulty=difficulty, pages=pages,
                                scenario=r.text("scenario"), cluster=cluster, source=source)
    if not faults:
        for key in ("goal", "hints", "solution", "check", "symptoms", "promises", "decoys"):
            if key in data:
                raise r.fail(key, "only a lab with faults has one")
        return Lab(**base)
    check = _check(r.table("check"))
    known = set(check.fields) | set(r.table("check").strings("uses", [], nonempty=False))
    steps = []
    for s in r.tables("solution"):
        s.unknown({"title", "run", "look_for", "record", "evidence"})
        run = s.strings("run")
        sub = TableReader(source, {}, s.where("run"))
        for i, text in enumerate(run):
            _placeholders_ok(sub, i, text, known)
        evidence = [_evidence(e, i, known, set(check.causes)) for i, e in enumerate(s.items("evidence"))]
        steps.append(Step(s.text("title"), run, s.text("look_for"), s.text("record"), evidence))
    if not steps:
        raise r.fail("solution", "must have at least one step")
    scenario = " ".join(base["scenario"].split())
    symptoms = [_symptom(t, scenario, known) for t in r.tables("symptoms")]
    promises = [_promise(t, scenario, known) for t in r.tables("promises")]
    if not symptoms:
        raise r.fail("symptoms", "must declare at least one symptom the brief claims")
    decoys = r.strings("decoys", [], nonempty=False)
    for i, name in enumerate(decoys):
        if name not in DECOYS:
            raise TableReader(source, {}, "decoys").fail(i, f"unknown decoy {name!r}")
    return Lab(**base, faults=faults, goal=r.text("goal"), hints=r.strings("hints"), solution=steps, check=check,
               symptoms=symptoms, promises=promises, decoys=decoys)


def _says(r: TableReader, scenario: str) -> str:
    says = r.text("says")
    if " ".join(says.split()) not in scenario:
        raise r.fail("says", "must be words of the scenario")
    return says


def _symptom(r: TableReader, scenario: str, names: set[str]) -> Symptom:
    r.unknown({"kind", "claim", "says", "run", "against"})
    kind = r.text("kind")
    if kind not in claims.KINDS:
        raise r.fail("kind", f"expected one of {', '.join(claims.KINDS)}")
    claim = r.text("claim")
    if claim not in claims.KINDS[kind]:
        raise r.fail("claim", f"a {kind} claim is one of {', '.join(claims.KINDS[kind])}")
    run = r.strings("run", [], nonempty=False)
    if kind in ("busbw", "gpu-util") and not run:
        raise r.fail("run", f"a {kind} symptom names the command lines that show it")
    sub = TableReader(r.source, {}, r.where("run"))
    for i, text in enumerate(run):
        _placeholders_ok(sub, i, text, names)
    against = r.text("against", "healthy")
    if against not in ("healthy", "previous") or (against == "previous" and kind not in ("step-time", "throughput")):
        raise r.fail("against", "expected healthy, or previous for a step-time or throughput claim")
    return Symptom(kind, claim, _says(r, scenario), run, against)


def _promise(r: TableReader, scenario: str, names: set[str]) -> Promise:
    r.unknown({"says", "when", "run", "pattern"})
    says, run, pattern, when = _says(r, scenario), r.strings("run"), r.text("pattern"), r.text("when", "")
    if when and (when.lower() not in claims.time_phrases(scenario) or "(?P<at>" not in pattern):
        raise r.fail("when", "must be a time phrase of the scenario, and the pattern must capture (?P<at>...)")
    sub = TableReader(r.source, {}, r.where("run"))
    for i, text in enumerate(run):
        _placeholders_ok(sub, i, text, names)
    try:
        re.compile(PLACEHOLDER.sub("x", pattern))
    except re.error as exc:
        raise r.fail("pattern", f"bad regular expression: {exc}") from None
    return Promise(says, run, pattern, when)


def _check(r: TableReader) -> Check:
    r.unknown({"fields", "uses", "causes", "synonyms", "broad", "wrong", "feedback"})
    fields = r.strings("fields")
    for i, name in enumerate(fields):
        if not re.fullmatch(r"[a-z][a-z_]*", name):
            raise TableReader(r.source, {}, r.where("fields")).fail(i, "expected a lowercase field name")
    causes: dict[str, list[str]] = {}
    if "cause" in fields:
        table = r.table("causes")
        if not table.data:
            raise r.fail("causes", "must list the cause words when fields has cause")
        causes = _vocabulary(table)
    synonyms: dict[str, dict[str, list[str]]] = {}
    table = r.table("synonyms", {})
    for key in table.data:
        if key not in fields or key == "cause":
            raise table.fail(key, "not one of check.fields other than cause")
        synonyms[key] = _vocabulary(table.table(key))
    wrong = r.table("wrong", {})
    advice = {}
    for key in wrong.data:
        if key not in fields:
            raise wrong.fail(key, "not one of check.fields")
        advice[key] = _advice(wrong, key, fields)
    feedback = []
    for fb in r.tables("feedback"):
        fb.unknown({"when", "say"})
        when = fb.table("when")
        if not when.data:
            raise fb.fail("when", "must not be empty")
        for key in when.data:
            if key not in fields:
                raise when.fail(key, "not one of check.fields")
            when.text(key)
        feedback.append(Feedback(dict(when.data), fb.text("say")))
    tables = {**synonyms, **({"cause": causes} if causes else {})}
    broad: dict[str, list[Umbrella]] = {}
    for umbrella in r.tables("broad"):
        name = umbrella.text("field", "cause")
        if name not in tables:
            raise umbrella.fail("field", "not a field with phrases (check.causes or check.synonyms)")
        broad.setdefault(name, []).append(_umbrella(umbrella, Vocabulary.of(tables[name])))
    return Check(fields, causes, advice, feedback, synonyms, broad)


def _umbrella(r: TableReader, vocabulary: Vocabulary) -> Umbrella:
    """``{field, phrases, spans, ask}``: phrases that name no value, two or more values spanned, a question
    back that names none."""
    r.unknown({"field", "phrases", "spans", "ask"})
    phrases = r.strings("phrases")
    where = TableReader(r.source, {}, r.where("phrases"))
    for i, phrase in enumerate(phrases):
        if not words(phrase):
            raise where.fail(i, f"{phrase!r} has no meaningful word")
        found = vocabulary.resolve(phrase)
        if found:
            raise where.fail(i, f"{phrase!r} already names {' and '.join(found)}")
    spans = r.strings("spans")
    where = TableReader(r.source, {}, r.where("spans"))
    for i, value in enumerate(spans):
        if value not in vocabulary.phrases:
            raise where.fail(i, f"{value!r} is not one of the field's values")
    if len(set(spans)) < 2:
        raise r.fail("spans", "an umbrella spans two or more values")
    ask = r.text("ask")
    if vocabulary.resolve(ask):
        raise r.fail("ask", f"names {' and '.join(vocabulary.resolve(ask))}: the question must not give the answer")
    return Umbrella(tuple(phrases), tuple(spans), ask)


def _vocabulary(table: TableReader) -> dict[str, list[str]]:
    """A value → phrases table, where every phrase names its own value and no other (:mod:`emulator.labs.phrases`)."""
    vocabulary = {value: table.strings(value, [], nonempty=False) for value in table.data}
    read = Vocabulary.of(vocabulary)
    for value, phrases in vocabulary.items():
        sub = TableReader(table.source, {}, table.where(value))
        for i, phrase in enumerate(phrases):
            if not words(phrase):
                raise sub.fail(i, f"{phrase!r} has no meaningful word")
            found = read.resolve(phrase)
            if found != [value]:
                others = " and ".join(v for v in found if v != value)
                raise sub.fail(i, f"{phrase!r} also names {others}")
    return vocabulary


#: "The node is right; ..." in advice: text that takes another field's verdict for granted.
_TAKES_RIGHT = re.compile(r"\bthe ([a-z_]+) is (?:right|correct)\b", re.I)


def _advice(wrong: TableReader, key: str, fields: list[str]) -> Advice:
    """``field = "text"``, or ``field = {say = ..., needs = [fields it takes as right], otherwise = ...}``."""
    if isinstance(wrong.data[key], str):
        tip = Advice(wrong.text(key))
        where = wrong
    else:
        where = wrong.table(key)
        where.unknown({"say", "needs", "otherwise"})
        needs = where.strings("needs", [], nonempty=False)
        for i, name in enumerate(needs):
            if name not in fields or name == key:
                raise TableReader(where.source, {}, where.where("needs")).fail(i, "not another of check.fields")
        tip = Advice(where.text("say"), needs, where.text("otherwise", ""))
    for name in _TAKES_RIGHT.findall(tip.say):
        if name.lower() in fields and name.lower() not in tip.needs:
            raise where.fail("say" if where is not wrong else key,
                             f"says the {name} is right: list it in needs (and say what holds otherwise)")
    return tip
