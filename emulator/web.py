"""The JSON-string boundary the browser worker calls through Pyodide.

Every argument is a plain ``str``, ``int`` or ``None``; every return value is
a JSON string (or None). Sessions live in this module, keyed by ``sid``.

``open_session(lab, seed, state, student=None) -> str``
    ``{"sid": str, "banner": str, "prompt": str, "lab": str|null, "seed": int,
    "title": str, "goal": str, "solved": {"hints": int, "attempts": int}|null,
    "objectives": [{"text": str, "done": bool}, ...], "notice": str|null}``.
    ``objectives`` are the lab's reference steps as a checklist, each done once
    the learner's own output showed its evidence (:mod:`emulator.labs.objectives`). ``banner`` is rendered from the lab and its cluster
    (:meth:`Session.banner`). ``solved`` is set once this session solved the
    lab it is in now. ``lab`` and ``seed`` are
    the session's current ones: a restored session that ran ``lab start``
    reports the lab it switched to, with that lab's ``title`` and ``goal``
    (the goal is "" for the healthy sandbox). ``state`` is an earlier
    :func:`snapshot` string or None. An unreadable state, a state of another schema version or of another
    lab/seed starts a fresh session and ``notice`` says so in one sentence; an
    unknown lab opens the sandbox (``lab`` null) with a notice. A state with a
    value out of range (a clock, ``$?``) restores with that value at its default,
    and ``notice`` names it; so does a restore that ran out of time. ``student``
    (the name a ``?student=`` link gave the page) is exported as ``$STUDENT``,
    the name completion codes carry (``completion --student`` overrides it).
``start(sid, line, columns=None, solves=None) -> None``
    Begin running one input line (an unfinished previous line is interrupted).
    ``columns``: the terminal's width in characters now, which the shell
    keeps as ``COLUMNS`` and the lab commands wrap their prose to.
    ``solves``: JSON ``{lab: {"hints": int, ...}}`` of the labs this browser
    solved (in any terminal), which ``lab list`` marks beside this session's own solves.
``step(sid) -> str``
    ``{"out": [[kind, text], ...], "pause": float, "done": bool,
    "status": int|null, "prompt": str}``; a chunk's kind is ``"out"`` or
    ``"err"`` (the tools' streams), ``"tip"`` (a hint of this terminal, not
    tool output: a GPU tool failed on a host without GPUs) or ``"ok"`` (a
    verdict: ``submit`` solved the lab). The ``done`` reply adds the session's
    current ``"lab"``, ``"seed"``, ``"title"``, ``"goal"``, ``"solved"`` and ``"objectives"``,
    which change when the line ran ``lab start`` or ``submit``, and ``"request"``:
    what the line asked of the page (``progress export`` or ``import``) as
    ``[action, path]``, else null. Call repeatedly until ``done``;
    ``pause`` is the simulated time the command waits before its next chunk
    (the browser sleeps min(pause, 1 s)). ``status`` is set when done.
``interrupt(sid) -> None``
    Stop the running line at the next chunk boundary: the next ``step`` ends
    it with ``^C`` and status 130.
``complete(sid, line) -> str``
    ``{"start": int, "matches": [str, ...], "common": str}``: completion of
    the last word, which begins at index ``start`` of ``line``; ``common`` is
    what may replace it (the longest common prefix, or the single match
    followed by a space).
``snapshot(sid) -> str``
    JSON with a ``"schema"`` version, enough to restore the whole session.
``reset(sid, student=None) -> str``
    Fresh state for the lab and seed the session was opened with (not one a
    ``lab start`` switched to); same shape as ``open_session``.
``prepare(lab, seed) -> None``
    Build a fresh session of that lab and seed ahead of its first
    ``open_session`` (the snapshot maker keeps one in the snapshot; the
    worker builds one when a link to a page of that lab is clicked), unless
    one is built already or a session open now is in that lab and seed.
``history(sid) -> str``
    JSON list of the lines entered, oldest first.
``close(sid) -> None``
    Forget a session.
``warm_next() -> bool``
    Read one more lab file, so that a page of another lab opens without
    parsing it (a lab file is quick: the labs go first), then import one more
    command family, so that a tool's first use does not pay its import;
    False once all are done. From the first command done, the worker
    calls it once a task until it answers False, any request going first.
``warm_all() -> None``
    Import every module of the package, read every lab file, and run
    ``help`` in a session closed again: what a runtime that never imports or
    compiles anything later holds (the snapshot maker calls it; the build
    compiles the standard-library modules this imports).
``incomplete(text) -> str``
    JSON bool: whether ``text`` (the lines typed so far, joined by newlines)
    needs another line, as bash prompts ``> `` after an open quote, a
    trailing ``|`` or a ``for`` without ``done``. Optional for the page.

An unknown ``sid`` raises ``KeyError`` (a bug in the caller, not the learner).
At most ``SESSION_LIMIT`` sessions stay open: opening one more closes the
least recently used (the page should snapshot a session it wants to keep).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections import OrderedDict
from contextlib import suppress
from itertools import count

from emulator import completion, labs
from emulator.commands import registry
from emulator.errors import LabError
from emulator.labs import codes
from emulator.limits import SESSION_LIMIT
from emulator.session import Run, Session

_sessions: OrderedDict[str, Session] = OrderedDict()
_runs: dict[str, Run] = {}
_ids = count(1)
#: Fresh sessions built ahead of need by :func:`prepare`, by (lab, seed); each is handed out once.
_spares: dict[tuple[str | None, int], Session] = {}


def prepare(lab: str | None, seed: int) -> None:
    """Build a fresh session of ``lab`` and ``seed`` now, for the next :func:`open_session` of them.

    The snapshot maker calls it for the labs the reader's visit opened, so a
    runtime restored from the snapshot opens them without building their
    cluster on the way to the first command; the worker calls it when a link
    to a page of the lab is clicked, while the page is fetched. An unknown lab
    is ignored, and so is one already built or open now.
    """
    key = (lab, int(seed or 0))
    if key in _spares or any((session.lab, session.seed) == key for session in _sessions.values()):
        return
    with suppress(LabError):
        _spares[key] = Session(*key)


def _session(sid: str) -> Session:
    """The session ``sid`` (KeyError if unknown), marked as just used."""
    session = _sessions[sid]
    _sessions.move_to_end(sid)
    return session


def _variant(session: Session) -> dict[str, object]:
    """The lab the session is in now (after any ``lab start``): id, seed, title and goal."""
    lab = labs.get(session.lab)
    progress = session.lab_progress
    solved = {"hints": progress.hints, "attempts": progress.attempts} if progress and progress.solved else None
    objectives = [{"text": o.text, "done": o.done} for o in session.objectives()]
    return {"lab": session.lab, "seed": session.seed, "title": lab.title, "goal": " ".join(lab.goal.split()),
            "solved": solved, "objectives": objectives}


def _opened(sid: str, session: Session, notice: str | None) -> str:
    return json.dumps({"sid": sid, "banner": session.banner(), "prompt": session.prompt, **_variant(session),
                       "notice": notice})


def _fresh(lab: str | None, seed: int) -> tuple[Session, str | None]:
    try:
        return _spares.pop((lab, seed), None) or Session(lab, seed), None
    except LabError:
        return Session(None, seed), f"Unknown lab {lab!r}: the sandbox opened instead."


def _name(session: Session, student: str | None) -> None:
    """Export the page's student name as ``$STUDENT`` (none given: leave the environment as it is)."""
    name = codes.clean_name(student or "")[:codes.NAME_LIMIT]
    if name:
        session.shell.export("STUDENT", name)


def _request(session: Session) -> list[str] | None:
    """What the line asked of the page, handed over once."""
    request, session.request = session.request, None
    return list(request) if request else None


def open_session(lab: str | None, seed: int, state: str | None, student: str | None = None) -> str:
    seed = int(seed or 0)
    session: Session | None = None
    notice = None
    if state:
        try:
            data = json.loads(state)
            if isinstance(data, dict) and (data.get("lab"), data.get("seed")) != (lab, seed):
                notice = "The saved session was for another lab, so a fresh one started."
            else:
                session = Session.restore(data, _spares.pop((lab, seed), None))
                notice = " ".join(session.notices) or None
        except Exception:  # noqa: BLE001 - any unusable state (bad JSON, old schema, a lab gone): start fresh
            notice = "The saved session could not be restored, so a fresh one started."
    if session is None:
        session, lab_notice = _fresh(lab, seed)
        notice = lab_notice or notice
    _name(session, student)
    sid = f"s{next(_ids)}"
    _sessions[sid] = session
    while len(_sessions) > SESSION_LIMIT:
        close(next(iter(_sessions)))
    return _opened(sid, session, notice)


def start(sid: str, line: str, columns: int | None = None, solves: str | None = None) -> None:
    session = _session(sid)
    if columns:
        session.resize(int(columns))
    if solves:
        with suppress(ValueError, TypeError):
            known = json.loads(solves)
            if isinstance(known, dict):
                hints = {lab: solve.get("hints") for lab, solve in known.items() if isinstance(solve, dict)}
                session.browser_solves = {str(lab): n for lab, n in hints.items() if isinstance(n, int) and n >= 0}
    running = _runs.pop(sid, None)
    if running is not None and not running.done:
        running.interrupt()
        while running.step() is not None:
            pass
    _runs[sid] = session.run(str(line))


def step(sid: str) -> str:
    session = _session(sid)
    run = _runs.get(sid)
    chunk = run.step() if run is not None else None
    if chunk is None:
        _runs.pop(sid, None)
        return json.dumps({"out": [], "pause": 0.0, "done": True, "status": run.status if run else None,
                           "prompt": session.prompt, **_variant(session), "request": _request(session)})
    reply = {"out": [list(pair) for pair in chunk.out], "pause": chunk.pause, "done": chunk.done,
             "status": chunk.status, "prompt": session.prompt}
    if chunk.done:
        _runs.pop(sid, None)
        reply.update(_variant(session), request=_request(session))
    return json.dumps(reply)


def interrupt(sid: str) -> None:
    run = _runs.get(sid)
    if run is not None:
        run.interrupt()


def complete(sid: str, line: str) -> str:
    result = _session(sid).complete(str(line))
    return json.dumps({"start": result.start, "matches": result.matches, "common": result.common})


def snapshot(sid: str) -> str:
    return json.dumps(_session(sid).snapshot())


def reset(sid: str, student: str | None = None) -> str:
    session = _session(sid)
    _runs.pop(sid, None)
    session.reset()
    _name(session, student)
    return _opened(sid, session, None)


def history(sid: str) -> str:
    return json.dumps(_session(sid).history)


def verify(codes: str, workshop: str | None) -> str:
    """The instructor page's check of completion codes (a JSON list of strings): a JSON list with, per code,
    ``ok``, ``line`` (what ``python -m emulator verify`` prints), ``lab``, ``seed``, ``student``, ``hints`` and
    ``solutions``; with a workshop name, a code whose seed is not its student's seed is refused."""
    verdicts = [completion.check(str(code), workshop or None) for code in json.loads(codes)]
    return json.dumps([{"ok": v.ok, "line": v.line, "lab": v.lab, "seed": v.seed, "student": v.student,
                        "hints": v.hints, "solutions": v.solutions} for v in verdicts])


def close(sid: str) -> None:
    _sessions.pop(sid, None)
    _runs.pop(sid, None)


def incomplete(text: str) -> str:
    return json.dumps(Session.incomplete(str(text)))


def warm_next() -> bool:
    """Read the next lab file not read yet, then import the next command family; False when all are done."""
    return labs.warm_next() or registry.warm_next()


def warm_all() -> None:
    package = importlib.import_module("emulator")
    for info in pkgutil.walk_packages(package.__path__, "emulator."):
        if not info.name.endswith(".__main__"):
            importlib.import_module(info.name)
    while warm_next():
        pass
    sid = json.loads(open_session("sandbox", 0, None))["sid"]
    start(sid, "help")
    while not json.loads(step(sid))["done"]:
        pass
    close(sid)
