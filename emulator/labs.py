"""Labs: load and validate the lab files, build each lab's cluster, judge a finding.

A lab is one TOML file in ``labs/`` (shipped in the wheel as the package
``emulator.labs_data``). Its fields, all checked by :func:`parse_lab`:

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
    accepted synonyms (wrong causes a learner may plausibly pick belong here
    too); ``[check.synonyms.FIELD]``: the same for another field;
    ``[check.wrong]``: field → what to say when that field is wrong;
    ``[[check.feedback]]``: ``when`` (a partial finding) → ``say``, for
    plausible wrong answers.

Command lines and evidence may name truth values as ``<node>``, ``<port>``...
``solutions`` prints them as they are (the learner fills them in from an
earlier step); the replay tests substitute the state's truth.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault, catalog
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.cluster.scheduler import expand_hostlist
from emulator.cluster.training import TrainingRun
from emulator.errors import LabError

#: The lab a session runs when it names none: the healthy cluster.
SANDBOX = "sandbox"
DIFFICULTIES = ("introductory", "intermediate", "advanced")
PLACEHOLDER = re.compile(r"<([a-z][a-z_]*)>")
_ID = re.compile(r"^[a-z][a-z0-9-]*$")


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
class Feedback:
    when: dict[str, str]
    say: str


@dataclass(frozen=True)
class Check:
    fields: list[str]
    causes: dict[str, list[str]]
    wrong: dict[str, str]
    feedback: list[Feedback]
    #: Other fields' vocabularies: field → canonical value → accepted spellings.
    synonyms: dict[str, dict[str, list[str]]] = field(default_factory=dict)


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
    source: str = ""

    @property
    def is_sandbox(self) -> bool:
        return not self.faults

    def submit_form(self) -> str:
        """``submit node=<node> port=<port> cause=<cause>``."""
        if self.check is None:
            return ""
        return "submit " + " ".join(f"{f}=<{f}>" for f in self.check.fields)


# -- validation ----------------------------------------------------------------------


class _Reader:
    """Typed access to one table of a lab file; errors name the file and field."""

    def __init__(self, source: str, data: dict[str, Any], path: str = "") -> None:
        self.source, self.data, self.path = source, data, path

    def where(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str | int, problem: str) -> LabError:
        return LabError(f"{self.source}: {self.where(key)}: {problem}")

    def unknown(self, allowed: set[str]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.fail(key, "unknown field")

    def get(self, key: str, kind: type | tuple[type, ...], name: str, default: Any = ..., ) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(key, f"expected {name}")
        return value

    def text(self, key: str, default: Any = ...) -> str:
        value = self.get(key, str, "a string", default)
        if isinstance(value, str) and not value.strip() and default is ...:
            raise self.fail(key, "must not be empty")
        return value

    def strings(self, key: str, default: Any = ..., nonempty: bool = True) -> list[str]:
        items = self.get(key, list, "a list of strings", default)
        if nonempty and not items and default is ...:
            raise self.fail(key, "must not be empty")
        sub = _Reader(self.source, {}, self.where(key))
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise sub.fail(i, "expected a string")
            if not item.strip():
                raise sub.fail(i, "must not be empty")
        return list(items)

    def table(self, key: str, default: Any = ...) -> _Reader:
        return _Reader(self.source, self.get(key, dict, "a table", default), self.where(key))

    def items(self, key: str) -> list[_Reader]:
        """A list whose items are strings or tables (each wrapped; strings as ``data``)."""
        items = self.get(key, list, "a list", [])
        readers = []
        for i, item in enumerate(items):
            if not isinstance(item, (str, dict)):
                raise _Reader(self.source, {}, self.where(key)).fail(i, "expected a string or a table")
            readers.append(_Reader(self.source, item, f"{self.where(key)}[{i}]"))  # type: ignore[arg-type]
        return readers

    def tables(self, key: str) -> list[_Reader]:
        items = self.get(key, list, "an array of tables", [])
        readers = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise _Reader(self.source, {}, self.where(key)).fail(i, "expected a table")
            readers.append(_Reader(self.source, item, f"{self.where(key)}[{i}]"))
        return readers


_CLUSTER_KEYS = {"nodes": int, "training_nodes": int, "other_jobs": int}


def _cluster(r: _Reader) -> dict[str, Any]:
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


def _placeholders_ok(r: _Reader, key: str | int, text: str, names: set[str]) -> None:
    for name in PLACEHOLDER.findall(text):
        if name not in names:
            raise r.fail(key, f"<{name}> is not a field of check.fields or check.uses")


def _evidence(r: _Reader, index: int, names: set[str], causes: set[str]) -> Evidence:
    """One evidence item: a pattern string, or a table ``{cause = ..., pattern = ...}``
    (``when = {field = value}`` for a variant named by another truth field)."""
    when: dict[str, str] = {}
    if isinstance(r.data, str):
        pattern = r.data
        where = _Reader(r.source, {}, r.path.rsplit("[", 1)[0])
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
    r = _Reader(source, data)
    r.unknown({"id", "title", "difficulty", "pages", "scenario", "cluster", "faults", "goal", "hints",
               "solution", "check"})
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
            raise _Reader(source, {}, "pages").fail(i, "expected a site path such as guides/data-loading.md")
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
        for key in ("goal", "hints", "solution", "check"):
            if key in data:
                raise r.fail(key, "only a lab with faults has one")
        return Lab(**base)
    check = _check(r.table("check"))
    known = set(check.fields) | set(r.table("check").strings("uses", [], nonempty=False))
    steps = []
    for s in r.tables("solution"):
        s.unknown({"title", "run", "look_for", "record", "evidence"})
        run = s.strings("run")
        sub = _Reader(source, {}, s.where("run"))
        for i, text in enumerate(run):
            _placeholders_ok(sub, i, text, known)
        evidence = [_evidence(e, i, known, set(check.causes)) for i, e in enumerate(s.items("evidence"))]
        steps.append(Step(s.text("title"), run, s.text("look_for"), s.text("record"), evidence))
    if not steps:
        raise r.fail("solution", "must have at least one step")
    return Lab(**base, faults=faults, goal=r.text("goal"), hints=r.strings("hints"), solution=steps, check=check)


def _check(r: _Reader) -> Check:
    r.unknown({"fields", "uses", "causes", "synonyms", "wrong", "feedback"})
    fields = r.strings("fields")
    for i, name in enumerate(fields):
        if not re.fullmatch(r"[a-z][a-z_]*", name):
            raise _Reader(r.source, {}, r.where("fields")).fail(i, "expected a lowercase field name")
    causes: dict[str, list[str]] = {}
    if "cause" in fields:
        table = r.table("causes")
        if not table.data:
            raise r.fail("causes", "must list the cause words when fields has cause")
        for word in table.data:
            causes[word] = table.strings(word, [], nonempty=False)
    synonyms: dict[str, dict[str, list[str]]] = {}
    table = r.table("synonyms", {})
    for key in table.data:
        if key not in fields or key == "cause":
            raise table.fail(key, "not one of check.fields other than cause")
        words = table.table(key)
        synonyms[key] = {word: words.strings(word, [], nonempty=False) for word in words.data}
    wrong = r.table("wrong", {})
    for key in wrong.data:
        if key not in fields:
            raise wrong.fail(key, "not one of check.fields")
        wrong.text(key)
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
    return Check(fields, causes, dict(wrong.data), feedback, synonyms)


# -- loading ---------------------------------------------------------------------------


def _lab_files() -> list[tuple[str, str]]:
    """(display path, text) of every lab file: the installed package data, else the repository's."""
    try:
        root: Any = resources.files("emulator.labs_data")
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parent.parent / "labs"
    files = sorted((p for p in root.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)
    return [(f"labs/{p.name}", p.read_text(encoding="utf-8")) for p in files]


def load_text(text: str, source: str) -> Lab:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{source}: not valid TOML: {exc}") from None
    return parse_lab(data, source)


@cache
def all_labs() -> dict[str, Lab]:
    """Every lab by id, validated; the first invalid file raises :class:`LabError`."""
    labs: dict[str, Lab] = {}
    for source, text in _lab_files():
        lab = load_text(text, source)
        labs[lab.id] = lab
    return labs


def known_labs() -> list[str]:
    """Ids of every lab file."""
    return list(all_labs())


def get(lab_id: str | None) -> Lab:
    labs = all_labs()
    key = lab_id or SANDBOX
    if key not in labs:
        raise LabError(f"unknown lab: {lab_id}")
    return labs[key]


# -- building --------------------------------------------------------------------------


def spec_for(lab: Lab, seed: int) -> ClusterSpec:
    return ClusterSpec(seed=seed, **lab.cluster)


def fault_params(lab: Lab, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Each fault's parameters for this seed: the fixed ones plus one pick per ``vary`` entry."""
    out = []
    for i, fault in enumerate(lab.faults):
        name = _pick(fault.names, seed, lab.id, i, "name")
        params = dict(fault.params)
        for key, options in fault.vary.items():
            params[key] = _pick(options, seed, lab.id, i, key)
        if len(fault.names) > 1:
            params = {k: v for k, v in params.items() if k in catalog()[name].params}
        out.append((name, params))
    return out


def _pick(options: list[Any], seed: int, *names: object) -> Any:
    """One choice per seed: a fixed shuffle of the options walked in seed order, so any
    ``len(options)`` consecutive seeds cover every choice."""
    order = list(range(len(options)))
    rng(0, "lab-order", *names).shuffle(order)
    return options[order[seed % len(options)]]


def build(lab: Lab, seed: int, faults: bool = True) -> Cluster:
    """The lab's cluster for ``seed``; ``faults=False`` gives its healthy twin."""
    cluster = build_cluster(spec_for(lab, seed))
    if faults:
        for name, params in fault_params(lab, seed):
            try:
                apply_fault(cluster, name, params)
            except ValueError as exc:
                raise LabError(f"{lab.source}: faults: {exc}") from None
    return cluster


def cluster_for(lab_id: str | None, seed: int, faults: bool = True) -> Cluster:
    """The cluster a session starts with: the lab's, or the healthy sandbox; ``faults=False``: its healthy twin."""
    return build(get(lab_id), seed, faults)


# -- judging ---------------------------------------------------------------------------


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


# -- evidence: what the learner ran against the reference procedure -------------------------

_SRUN_ARGS = {"-w", "--nodelist", "-N", "--nodes", "-n", "--ntasks", "-p", "--partition", "--jobid",
              "--ntasks-per-node", "--gpus-per-node", "-t", "--time", "-J", "--job-name"}
_WRAPPERS = {"sudo", "watch", "timeout", "time", "env"}
#: Words that open a compound command's body, and words of its header.
_BODY = {"do", "then", "else", "{", "(", "!"}
_HEADER = {"for", "while", "until", "if", "elif", "done", "fi", "}", ")", "case", "esac"}


def tool_runs(lines: list[str], home: str = "login01") -> list[tuple[str | None, str]]:
    """The (host, tool) pairs a list of typed lines ran, following ``ssh``/``exit`` and ``srun -w``.

    The host is None when a launcher picks the nodes (``srun`` without ``-w``) or a
    variable names it (``for n in ...; do ssh $n ibstat; done``).
    """
    stack = [home]
    runs: list[tuple[str | None, str]] = []
    for line in lines:
        for words in _simple_commands(line):
            host: str | None = stack[-1]
            if words and words[0] in _HEADER:
                continue
            while words:
                head = words[0]
                if head in _BODY or ("=" in head and not head.startswith("-")):
                    words = words[1:]
                elif head == "ssh":
                    rest = [w for w in words[1:] if not w.startswith("-")]
                    if not rest:
                        break
                    target = rest[0].split("@")[-1].split(".")[0]
                    if len(rest) == 1:
                        stack.append(target)
                        words = []
                        break
                    host, words = (None if "$" in target else target), rest[1:]
                elif head == "srun":
                    host, words = _srun(words[1:])
                elif head in _WRAPPERS:
                    words = _skip_options(words[1:])
                elif head in ("exit", "logout"):
                    if len(stack) > 1:
                        stack.pop()
                    words = []
                else:
                    runs.append((host, head))
                    break
    return runs


def _skip_options(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-n", "-u") else 1
    return words[i:]


def _srun(words: list[str]) -> tuple[str | None, list[str]]:
    host: str | None = None
    i = 0
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        value = None
        if "=" in word:
            word, value = word.split("=", 1)
            i += 1
        elif word in _SRUN_ARGS:
            value = words[i + 1] if i + 1 < len(words) else None
            i += 2
        else:
            i += 1
        if word in ("-w", "--nodelist") and value:
            try:
                names = expand_hostlist(value)
            except ValueError:
                names = []
            host = names[0] if len(names) == 1 else None
    return host, words[i:]


def _simple_commands(line: str) -> list[list[str]]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= set(";&|"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:
        return []
    return [c for c in commands if c]


def substitute(text: str, values: dict[str, str]) -> str:
    """``ssh <node> ibstat`` → ``ssh node07 ibstat`` with the state's truth."""
    return PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)


def substitute_pattern(pattern: str, values: dict[str, str]) -> str:
    """A regular expression with ``<field>`` replaced by the escaped truth value."""
    return PLACEHOLDER.sub(lambda m: re.escape(str(values.get(m.group(1), m.group(0)))), pattern)


def evidence_report(lab: Lab, truth: dict[str, str], typed: list[str], home: str = "login01") -> list[str]:
    """One line per reference step: which of its tools the learner ran where the procedure runs them."""
    ran = tool_runs(typed, home)
    lines = []
    for n, step in enumerate(lab.solution, start=1):
        wanted = tool_runs([substitute(cmd, truth) for cmd in step.run], home)
        seen = [w for w in wanted if any(t == w[1] and (h is None or w[0] is None or h == w[0]) for h, t in ran)]
        names = ", ".join(sorted({f"{t} on {h}" if h and h != home else t for h, t in wanted}))
        mark = "yes" if len(seen) == len(wanted) else ("partly" if seen else "no")
        lines.append(f"  {n}. {step.title}: {names} ... {mark}")
    return lines
